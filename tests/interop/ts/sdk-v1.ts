// The TypeScript SDK v1 client (`@modelcontextprotocol/sdk`, the maintenance line, legacy era
// only: it implements revisions up to 2025-11-25) against one example server.
//
//   node ts/sdk-v1.ts <fixture.json> <server-binary> [server args...]

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { callOutcome, contentsOutcome, errorOutcome, parseArgs, promptOutcome, Report, runAndExit, runChecks, settle, type CallOutcome, type Session } from './common.ts';

const cli = parseArgs(process.argv, ['legacy']);
const report = new Report(`typescript-sdk-v1 (${cli.era}) ${cli.fixture.example}`);

const client = new Client({ name: 'mcp-rs-interop-ts-v1', version: '0.0.0' });
const transport = new StdioClientTransport({ command: cli.command, args: cli.args, stderr: 'inherit' });
// v1 exposes the negotiated revision only by handing it to the transport after `initialize`.
let negotiated: string | undefined;
(transport as Transport).setProtocolVersion = (version: string) => {
    negotiated = version;
};

const session: Session = {
    era: () => ({ era: 'legacy', protocolVersion: negotiated }),
    serverName: () => client.getServerVersion()?.name,
    capabilities: () => client.getServerCapabilities(),
    listTools: async cursor => {
        const page = await client.listTools(cursor === undefined ? {} : { cursor });
        return { items: page.tools, nextCursor: page.nextCursor };
    },
    listResources: async cursor => {
        const page = await client.listResources(cursor === undefined ? {} : { cursor });
        return { items: page.resources, nextCursor: page.nextCursor };
    },
    listResourceTemplates: async cursor => {
        const page = await client.listResourceTemplates(cursor === undefined ? {} : { cursor });
        return { items: page.resourceTemplates, nextCursor: page.nextCursor };
    },
    listPrompts: async cursor => {
        const page = await client.listPrompts(cursor === undefined ? {} : { cursor });
        return { items: page.prompts, nextCursor: page.nextCursor };
    },
    callTool: async (name, args): Promise<CallOutcome> => {
        try {
            // The v1 signature also admits the 2024-10-07 `toolResult` shape; ours must be the modern one.
            const raw = await client.callTool({ name, arguments: args });
            if (!('content' in raw) || !Array.isArray(raw.content)) {
                return { kind: 'protocolError', code: undefined, message: `result has no content array: ${JSON.stringify(raw)}` };
            }
            const result = raw as CallToolResult;
            return callOutcome(result);
        } catch (error) {
            return errorOutcome(error);
        }
    },
    readResource: uri => settle(() => client.readResource({ uri }), result => contentsOutcome(result.contents)),
    getPrompt: (name, args) => promptOutcome(() => client.getPrompt({ name, arguments: args })),
    complete: (ref, argument) =>
        settle(() => client.complete({ ref, argument }), result => ({ kind: 'result' as const, values: result.completion.values }))
};

await runAndExit(
    report,
    async () => {
        await client.connect(transport);
        report.ok(`connected over stdio to ${cli.command}`);
        await runChecks(report, session, cli.fixture, 'legacy');
    }, () => client.close()
);
