// The TypeScript SDK v2 client (`@modelcontextprotocol/client`) against one example server.
//
//   node ts/sdk-v2.ts [--era legacy|auto] <fixture.json> <server-binary> [server args...]
//
// `legacy` is the SDK's default connect (an `initialize` handshake, no option given); `auto`
// sets `versionNegotiation: { mode: 'auto' }`, which probes with `server/discover` first and
// must land on the modern 2026-07-28 era against our dual-era servers.

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { callOutcome, contentsOutcome, errorOutcome, parseArgs, promptOutcome, Report, runAndExit, runChecks, settle, type CallOutcome, type Session } from './common.ts';

const cli = parseArgs(process.argv, ['legacy', 'auto']);
const report = new Report(`typescript-sdk-v2 (${cli.era}) ${cli.fixture.example}`);

const client = new Client(
    { name: 'mcp-rs-interop-ts-v2', version: '0.0.0' },
    cli.era === 'auto' ? { versionNegotiation: { mode: 'auto' } } : {}
);
const transport = new StdioClientTransport({ command: cli.command, args: cli.args, stderr: 'inherit' });

const session: Session = {
    era: () => ({
        era: client.getProtocolEra() === 'modern' ? 'modern' : 'legacy',
        protocolVersion: client.getNegotiatedProtocolVersion()
    }),
    serverName: () => client.getServerVersion()?.name,
    capabilities: () => client.getServerCapabilities(),
    // Without a cursor the v2 SDK follows `nextCursor` itself and answers the aggregate of all
    // pages (its own pagination is what is exercised); with one it answers that raw page.
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
            const result = await client.callTool({ name, arguments: args });
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
        await runChecks(report, session, cli.fixture, cli.era === 'auto' ? 'modern' : 'legacy');
    }, () => client.close()
);
