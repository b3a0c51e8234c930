package kcpref

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// loadYAML decodes one YAML document into the value model of js-yaml 4
// load() with its default schema: the YAML 1.2 core schema plus timestamps,
// merge keys and !!binary. Plain scalars are resolved the js-yaml way, not
// the yaml.v3 way (0755 is 755, unquoted dates are Dates, 1_000 is the
// string "1_000"), as js-yaml 4.3.0 does, the version kcp-agent 0.27.0's
// lock file pins; so are its limits of 100 nested nodes and 10,000 keys
// copied by merges.
// An empty stream yields (nil, false, nil): JS undefined.
func loadYAML(data []byte) (value any, present bool, err error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, false, nil
		}
		return nil, false, yamlSyntaxError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, false, yamlSyntaxError(err)
		}
		return nil, false, &ParseError{Line: extra.Line, Column: extra.Column,
			Reason: "expected a single document in the stream, but found more"}
	}
	var c converter
	v, err := c.value(&doc)
	return v, true, err
}

func yamlSyntaxError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	pe := &ParseError{Reason: msg}
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, tail, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				pe.Line, pe.Reason = n, tail
			}
		}
	}
	return pe
}

// converter turns yaml.Nodes into JS values. Anchored nodes are converted
// once and shared, as js-yaml shares the object an alias points to. Only
// anchored nodes can be reached twice (through an alias), so only they are
// memoized and tracked for cycles; both maps are allocated on first use.
type converter struct {
	memo map[*yaml.Node]any
	busy map[*yaml.Node]bool
	// depth counts the nodes being converted, one inside the other, and
	// mergedKeys the keys merges have copied (js-yaml's maxDepth and
	// maxTotalMergeKeys).
	depth, mergedKeys int
}

// js-yaml 4.3's default limits.
const (
	yamlMaxDepth          = 100
	yamlMaxTotalMergeKeys = 10000
)

// enter marks an anchored node as being converted; false when it already
// is (a circular alias).
func (c *converter) enter(n *yaml.Node) bool {
	if c.busy == nil {
		c.busy = map[*yaml.Node]bool{}
	}
	if c.busy[n] {
		return false
	}
	c.busy[n] = true
	return true
}

// remember stores the value of an anchored node for later aliases.
func (c *converter) remember(n *yaml.Node, v any) {
	if c.memo == nil {
		c.memo = map[*yaml.Node]any{}
	}
	c.memo[n] = v
}

func (c *converter) fail(n *yaml.Node, format string, args ...any) error {
	return &ParseError{Line: n.Line, Column: n.Column, Reason: fmt.Sprintf(format, args...)}
}

func (c *converter) value(n *yaml.Node) (any, error) {
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0])
	}
	if c.depth >= yamlMaxDepth {
		return nil, c.fail(n, "nesting exceeded maxDepth (%d)", yamlMaxDepth)
	}
	c.depth++
	defer func() { c.depth-- }()
	switch n.Kind {
	case yaml.AliasNode:
		return c.alias(n)
	}
	if n.Anchor == "" {
		return c.construct(n)
	}
	if v, ok := c.memo[n]; ok {
		return v, nil
	}
	if !c.enter(n) {
		return nil, c.fail(n, "circular alias is not supported")
	}
	defer delete(c.busy, n)
	v, err := c.construct(n)
	if err == nil {
		c.remember(n, v)
	}
	return v, err
}

// construct converts a scalar, sequence or mapping node.
func (c *converter) construct(n *yaml.Node) (any, error) {
	var v any
	var err error
	switch n.Kind {
	case yaml.ScalarNode:
		v, err = c.scalar(n)
	case yaml.SequenceNode:
		v, err = c.sequence(n)
	case yaml.MappingNode:
		v, err = c.mapping(n)
	default:
		err = c.fail(n, "unexpected YAML node kind %d", n.Kind)
	}
	return v, err
}

func (c *converter) alias(n *yaml.Node) (any, error) {
	if n.Alias == nil {
		return nil, c.fail(n, "unidentified alias %q", n.Value)
	}
	return c.value(n.Alias)
}

func (c *converter) sequence(n *yaml.Node) (any, error) {
	if err := c.checkCollectionTag(n, "!!seq", "!!omap", "!!pairs"); err != nil {
		return nil, err
	}
	out := make([]any, 0, len(n.Content))
	for _, item := range n.Content {
		v, err := c.value(item)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (c *converter) checkCollectionTag(n *yaml.Node, allowed ...string) error {
	if n.Style&yaml.TaggedStyle == 0 {
		return nil
	}
	for _, t := range allowed {
		if n.Tag == t {
			return nil
		}
	}
	return c.fail(n, "unknown tag !<%s>", longTag(n.Tag))
}

func (c *converter) mapping(n *yaml.Node) (any, error) {
	if err := c.checkCollectionTag(n, "!!map", "!!set"); err != nil {
		return nil, err
	}
	obj := newJSObjectSize(len(n.Content) / 2)
	var merged map[string]bool // keys that came from a merge and may be overridden; nil until a merge
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if isMergeKey(k) {
			if merged == nil {
				merged = map[string]bool{}
			}
			if err := c.merge(obj, merged, v); err != nil {
				return nil, err
			}
			continue
		}
		key, err := c.key(k)
		if err != nil {
			return nil, err
		}
		if _, dup := obj.get(key); dup && !merged[key] {
			return nil, c.fail(k, "duplicated mapping key %s", jsonString(key))
		}
		delete(merged, key)
		vv, err := c.value(v)
		if err != nil {
			return nil, err
		}
		obj.set(key, vv)
	}
	return obj, nil
}

// key is String() of a mapping key. A plain-string or quoted key without
// tag or anchor is its own text; anything else is converted first.
func (c *converter) key(k *yaml.Node) (string, error) {
	if k.Kind == yaml.ScalarNode && k.Anchor == "" && k.Style&yaml.TaggedStyle == 0 &&
		(k.Style&quotedStyles != 0 || !mayBeNonString(k.Value)) {
		return k.Value, nil
	}
	kv, err := c.value(k)
	if err != nil {
		return "", err
	}
	return jsString(kv), nil
}

func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Tag == "!!merge" && k.Value == "<<"
}

// merge applies a `<<` key: the keys of a mapping (or of each mapping of a
// sequence, earlier ones first) are added when not already present.
func (c *converter) merge(obj *jsObject, merged map[string]bool, v *yaml.Node) error {
	src, err := c.value(v)
	if err != nil {
		return err
	}
	var sources []*jsObject
	switch s := src.(type) {
	case *jsObject:
		sources = []*jsObject{s}
	case []any:
		for _, e := range s {
			m, ok := e.(*jsObject)
			if !ok {
				return c.fail(v, "cannot merge mappings; the provided source object is unacceptable")
			}
			sources = append(sources, m)
		}
	default:
		return c.fail(v, "cannot merge mappings; the provided source object is unacceptable")
	}
	for _, m := range sources {
		for _, e := range m.entries {
			if c.mergedKeys++; c.mergedKeys > yamlMaxTotalMergeKeys {
				return c.fail(v, "merge keys exceeded maxTotalMergeKeys (%d)", yamlMaxTotalMergeKeys)
			}
			key := e.key
			if _, ok := obj.get(key); !ok {
				obj.set(key, e.val)
				merged[key] = true
			}
		}
	}
	return nil
}

func longTag(short string) string {
	if rest, ok := strings.CutPrefix(short, "!!"); ok {
		return "tag:yaml.org,2002:" + rest
	}
	return short
}

const quotedStyles = yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle | yaml.LiteralStyle | yaml.FoldedStyle

func (c *converter) scalar(n *yaml.Node) (any, error) {
	s := n.Value
	if n.Style&yaml.TaggedStyle != 0 {
		return c.explicitScalar(n)
	}
	if n.Style&quotedStyles != 0 {
		return s, nil
	}
	return resolvePlain(s), nil
}

// explicitScalar constructs a scalar with an explicit tag, failing like
// js-yaml when the text does not fit the tag.
func (c *converter) explicitScalar(n *yaml.Node) (any, error) {
	s := n.Value
	cannot := func() error {
		return c.fail(n, "cannot resolve a node with !<%s> explicit tag", longTag(n.Tag))
	}
	switch n.Tag {
	case "!!str":
		return s, nil
	case "!!null":
		if isYAMLNull(s) {
			return nil, nil
		}
	case "!!bool":
		if b, ok := yamlBool(s); ok {
			return b, nil
		}
	case "!!int":
		if isYAMLInt(s) {
			return yamlInt(s), nil
		}
	case "!!float":
		if isYAMLFloat(s) {
			return yamlFloat(s), nil
		}
	case "!!timestamp":
		if t, ok := yamlTimestamp(s); ok {
			return jsDate{t}, nil
		}
	case "!!binary":
		if b, ok := yamlBinary(s); ok {
			return b, nil
		}
	case "!!merge":
		return s, nil
	default:
		return nil, c.fail(n, "unknown tag !<%s>", longTag(n.Tag))
	}
	return nil, cannot()
}
