package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/sifu-dev/sifu/internal/declaration"
	"github.com/sifu-dev/sifu/internal/registry"
)

func newVerifyCmd() *cobra.Command {
	var keyFile string
	cmd := &cobra.Command{
		Use:   "verify conformance.json",
		Short: "Re-check a conformance statement offline: its hashes, every verdict judged again from the transcript, and its signature",
		Long: `Verify checks a conformance statement without the implementation. It
recomputes the SHA-256 of the evidence beside the declaration and of this
harness's suite files; judges every check again from the answers recorded in
transcript.jsonl, so that every verdict must follow from the transcript;
applies the expectations file again; folds the rule verdicts and the profile
claims again; and writes conformance.md again and compares it. With --key it
also checks conformance.intoto.json, the in-toto attestation ` + "`sifu sign`" + `
writes, against that public key. A statement that carries an attestation
is checked without --key too, all but the signature (its subjects are the
files as they are, its predicate is conformance.json); since a signature
can only be checked with the signer's public key, which the attestation
does not carry, verify then asks for --key (exit 2) instead of saying OK.

A statement kept without its transcript (the bundled references' under
conformance/) is checked all but its verdicts, which need the transcript:
verify then names the command that makes the whole statement (exit 2).

It exits 0 when the statement holds, 1 with the reasons when it does not,
and 2 when the file cannot be read as a declaration, when --key is not a
PEM public key, when a signed statement is verified without --key, or when
the statement is kept without its transcript.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var opts declaration.VerifyOptions
			if keyFile != "" {
				var err error
				if opts.PublicKey, err = declaration.ReadPublicKey(keyFile); err != nil {
					return usagef("%v", err)
				}
			}
			d, problems, err := registry.Verify(cmd.Context(), args[0], opts)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if len(problems) > 0 {
				for _, p := range problems {
					fmt.Fprintln(out, "FAIL", p)
				}
				return &failedError{msg: fmt.Sprintf("%s does not hold: %d problem(s)", args[0], len(problems))}
			}
			signed := ""
			if keyFile != "" {
				signed = ", signature verifies with " + keyFile
			}
			fmt.Fprintf(out, "OK %s: %s %s, profiles claimed %v, %d rules; evidence hashes match and every verdict follows from the transcript%s\n",
				args[0], d.Spec.Name, d.Spec.Version, d.Claimed, len(d.Rules), signed)
			return nil
		},
	}
	cmd.Flags().StringVar(&keyFile, "key", "", "public key (PEM, ed25519) the statement's attestation must be signed with")
	return cmd
}

func newSignCmd() *cobra.Command {
	var keyFile string
	cmd := &cobra.Command{
		Use:   "sign --key private.pem DIR",
		Short: "Sign the conformance statement in DIR as an in-toto attestation (DSSE, ed25519)",
		Long: `Sign writes DIR/conformance.intoto.json: a DSSE envelope, signed with the
ed25519 private key, over an in-toto Statement (https://in-toto.io/Statement/v1)
whose subjects are the statement's files by SHA-256 and whose predicate
(` + declaration.PredicateType + `) is conformance.json. ` + "`sifu verify --key public.pem`" + ` checks it.
Make a key pair with ` + "`sifu keygen`" + ` or ` + "`openssl genpkey -algorithm ed25519`" + `.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if keyFile == "" {
				return usagef("sign needs --key, the private key (PEM, ed25519); `sifu keygen` makes one")
			}
			id, err := declaration.SignFile(cmd.Context(), args[0], keyFile)
			if err != nil {
				return usagef("%v", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "signed %s with key %s\n", filepath.Join(args[0], declaration.AttestationFile), id)
			return nil
		},
	}
	cmd.Flags().StringVar(&keyFile, "key", "", "private key (PEM, ed25519)")
	return cmd
}

func newKeygenCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "keygen --out NAME",
		Short: "Make an ed25519 key pair for signing statements: NAME.pem (private) and NAME.pub.pem (public)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usagef("keygen needs --out NAME, e.g. --out sifu-signing")
			}
			privPath, pubPath, err := declaration.WriteKeyPair(out)
			if err != nil {
				return usagef("%v", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (private: keep it secret) and %s (public: publish it)\n", privPath, pubPath)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "path prefix of the two key files")
	return cmd
}
