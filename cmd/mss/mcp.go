package main

import (
	"fmt"

	"github.com/missingcomplement/mss/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

func init() {
	var sf serviceFlags
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve mss as an MCP server (stdio, or streamable HTTP with --listen)",
		Long: `Serve mss to an MCP-capable agent. Tools: recover_evidence (the missing
evidence for the agent's state, excluding what the session has seen),
mark_observed (report lines read), search_code (lexical/symbol search) and
index_status.

By default the server speaks MCP over stdin/stdout, which is how agents
launch it:

  claude mcp add mss -- mss mcp --repo .

With --listen it serves the streamable HTTP transport at /mcp instead
(loopback only unless --allow-remote; bearer token from --token-env).
Logs go to stderr. See docs/serve.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			listen := cmd.Flags().Changed("listen")
			if listen {
				if err := server.CheckListen(sf.listen, sf.allowRemote); err != nil {
					return err
				}
			}
			// MCP clients allow a server little time to start: index
			// in the background, tools wait for it.
			svc, err := sf.service(ctx, cmd.ErrOrStderr(), true)
			if err != nil {
				return err
			}
			defer svc.Close()
			s := server.NewMCPServer(svc, version)
			if !listen {
				if err := s.Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
					return fmt.Errorf("mcp: %w", err)
				}
				return nil
			}
			h := server.NewHandler(svc, server.HandlerOptions{
				MaxBody:       sf.maxBody,
				MaxConcurrent: sf.maxConcurrent,
				MCP:           server.NewMCPHandler(s),
			})
			return sf.listenAndServe(ctx, h, cmd.ErrOrStderr())
		},
	}
	sf.register(cmd, "127.0.0.1:7778")
	addCommand(cmd)
}
