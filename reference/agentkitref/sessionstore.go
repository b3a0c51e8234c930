package agentkitref

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// sessionDir is the directory of the agent's file session store: the
// instance its session.store slot names (cap://store/session/<name>,
// declared under the agent's or app.yaml's stores) or the bare shorthand
// "file" with its store_config. "" when the slot holds no file store.
func (g *Gateway) sessionDir(a *agentRT) string {
	if has(g.faults, FaultSessionStoreIgnored) {
		return ""
	}
	return g.fileStoreDir(a, "session", a.cfg.Session.Store, a.cfg.Session.StoreConfig)
}

// fileStoreDir is the directory of the file store a module's store slot
// holds: the instance it names (cap://store/<kind>/<name>, declared under
// the agent's or app.yaml's stores) or the bare shorthand "file" with its
// store_config (a relative dir under the gateway's working directory). ""
// when the slot holds no file store.
func (g *Gateway) fileStoreDir(a *agentRT, kind, typ string, conf map[string]any) string {
	if name, ok := strings.CutPrefix(typ, "cap://store/"+kind+"/"); ok {
		typ, conf = "", nil
		for _, d := range append(append([]StoreDecl(nil), a.cfg.Stores...), g.app.Stores...) {
			if d.Name == name && d.Kind == kind {
				typ, conf = d.Type, d.Config
				break
			}
		}
	}
	dir, _ := conf["dir"].(string)
	if typ != "file" || dir == "" {
		return ""
	}
	if !filepath.IsAbs(dir) && g.workDir != "" {
		dir = filepath.Join(g.workDir, dir)
	}
	return dir
}

// sessionFile is where a file session store keeps one memory key's turns.
func sessionFile(dir, key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(dir, hex.EncodeToString(sum[:12])+".json")
}

// storedHistory is a memory key's turns, read from the agent's file
// session store the first time this process needs them. g.mu is held.
func (g *Gateway) storedHistory(a *agentRT, key string) []message {
	if h, ok := g.history[key]; ok {
		return h
	}
	dir := g.sessionDir(a)
	if dir == "" {
		return nil
	}
	b, err := os.ReadFile(sessionFile(dir, key))
	if err != nil {
		return nil
	}
	var h []message
	if json.Unmarshal(b, &h) != nil {
		return nil
	}
	g.history[key] = h
	return h
}

// storeHistory writes a memory key's turns to the agent's file session
// store, when it has one. g.mu is held.
func (g *Gateway) storeHistory(a *agentRT, key string) error {
	dir := g.sessionDir(a)
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("session store %s: %w", dir, err)
	}
	b, err := json.Marshal(g.history[key])
	if err != nil {
		return fmt.Errorf("session store: %w", err)
	}
	path := sessionFile(dir, key)
	if err := os.WriteFile(path+".tmp", b, 0o644); err != nil {
		return fmt.Errorf("session store %s: %w", dir, err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		return fmt.Errorf("session store %s: %w", dir, err)
	}
	return nil
}
