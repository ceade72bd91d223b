package main

import (
	"fmt"

	"github.com/missingcomplement/mss/internal/cliargs"
	"github.com/missingcomplement/mss/server"
	"github.com/spf13/cobra"
)

func init() { addCommand(newMCPCmd()) }

// newMCPCmd is mss mcp.
func newMCPCmd() *cobra.Command {
	var sf serviceFlags
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve mss as an MCP server (stdio, or streamable HTTP with --listen)",
		Long: `Serve mss to an MCP-capable agent. Tools: recover_evidence (the missing
evidence for the agent's state, excluding what the session has seen),
mark_observed (report lines read), search_code (lexical/symbol search) and
index_status. Each answers in text and as structured content.

By default the server speaks MCP over stdin/stdout, which is how agents
launch it:

  claude mcp add mss -- mss mcp --repo .

A malformed line gets a JSON-RPC error and the server keeps serving; a
line longer than --max-body is refused. When the client goes away while
the index is being built, the build is finished and written before the
process exits (SIGINT or SIGTERM stop it at once; the previous index
stays usable).

With --listen it serves the streamable HTTP transport at /mcp instead
(loopback only unless --allow-remote; bearer token from --token-env).
Logs go to stderr. See docs/serve.md.`,
		Args: cliargs.None,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			listen := cmd.Flags().Changed("listen")
			if listen {
				if err := sf.checkListen(); err != nil {
					return err
				}
			}
			if err := sf.check(listen); err != nil {
				return err
			}
			stderr := &syncWriter{w: cmd.ErrOrStderr()}
			// MCP clients allow a server little time to start: index
			// in the background, tools wait for it.
			svc, err := sf.service(ctx, stderr, true)
			if err != nil {
				return err
			}
			defer svc.Close()
			s := server.NewMCPServer(svc, version)
			if listen {
				return sf.listenAndServe(ctx, sf.handler(svc, s), stderr)
			}
			logf := func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
			t := &server.StdioTransport{In: cmd.InOrStdin(), Out: cmd.OutOrStdout(), MaxLine: int(sf.maxBody), Logf: logf}
			return server.ServeStdio(ctx, s, svc, t, logf)
		},
	}
	sf.register(cmd, "127.0.0.1:7778")
	return cmd
}
