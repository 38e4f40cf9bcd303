// The TypeScript SDK v2 client (`@modelcontextprotocol/client`) answering the servers' questions
// through `setRequestHandler('elicitation/create' | 'sampling/createMessage' | 'roots/list', ...)`;
// the checks are in ./asking-common.ts.
//
//   node ts/asking-v2.ts [--era legacy|auto] <long_task-binary> <asking-server-binary>
//
// `legacy` is the SDK's default connect (`initialize`): the servers send real requests, which
// the handlers answer. `auto` sets `versionNegotiation: { mode: 'auto' }` and must land on
// 2026-07-28, where calls end with `input_required`: the SDK's multi-round-trip driver (on by
// default) fulfils the embedded requests through the same handlers and retries the call with
// `inputResponses` + `requestState`, so `callTool()` still returns the final result.

import { Client, type ClientCapabilities } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { runAskingChecks, type AskingSession, type Connect } from './asking-common.ts';
import { callOutcome, errorOutcome, promptOutcome, Report, runAndExit } from './common.ts';

const argv = process.argv.slice(2);
let era = 'legacy';
if (argv[0] === '--era') {
    era = argv[1] ?? '';
    argv.splice(0, 2);
}
const [longTask, askingServer] = argv;
if (!['legacy', 'auto'].includes(era) || longTask === undefined || askingServer === undefined) {
    console.error('usage: node ts/asking-v2.ts [--era legacy|auto] <long_task-binary> <asking-server-binary>');
    process.exit(2);
}
const report = new Report(`typescript-sdk-v2 asking (${era})`);

const connect: Connect = async (binary, answers) => {
    const capabilities: ClientCapabilities = answers === undefined ? {} : { elicitation: { form: {} }, sampling: {}, roots: { listChanged: true } };
    const client = new Client(
        { name: 'mcp-rs-interop-ts-v2-asking', version: '0.0.0' },
        { capabilities, ...(era === 'auto' && { versionNegotiation: { mode: 'auto' } }) }
    );
    if (answers !== undefined) {
        client.setRequestHandler('elicitation/create', async (request, ctx) => {
            const params = request.params;
            const schema = 'requestedSchema' in params ? params.requestedSchema : undefined;
            const answer = answers.onElicit(String(ctx.mcpReq.id), params.message, schema);
            if (answer === undefined) throw new Error(`unexpected question ${JSON.stringify(params.message)}`);
            return answer;
        });
        client.setRequestHandler('sampling/createMessage', async request => {
            const { systemPrompt, maxTokens, messages } = request.params;
            const seen = messages.map(m => ({
                role: m.role,
                text: !Array.isArray(m.content) && m.content.type === 'text' ? m.content.text : undefined
            }));
            return answers.onSample(systemPrompt, maxTokens, seen);
        });
        client.setRequestHandler('roots/list', async () => answers.onRoots());
    }
    const transport = new StdioClientTransport({ command: binary, args: [], stderr: 'inherit' });
    await client.connect(transport);
    const session: AskingSession = {
        era: () => ({
            era: client.getProtocolEra() === 'modern' ? 'modern' : 'legacy',
            protocolVersion: client.getNegotiatedProtocolVersion()
        }),
        declared: () => ({ ...capabilities }),
        losesLastProgress: true,
        reportsInputRounds: era === 'auto',
        callTool: async (name, args, options) => {
            try {
                const result = await client.callTool(
                    { name, arguments: args },
                    {
                        ...(options?.signal !== undefined && { signal: options.signal }),
                        ...(options?.onprogress !== undefined && {
                            onprogress: p => options.onprogress?.({ progress: p.progress, total: p.total, message: p.message })
                        })
                    }
                );
                return callOutcome(result);
            } catch (error) {
                return errorOutcome(error);
            }
        },
        getPrompt: (name, args) => promptOutcome(() => client.getPrompt({ name, arguments: args })),
        close: () => client.close()
    };
    return session;
};

await runAndExit(
    report,
    async () => {
        await runAskingChecks(report, connect, era === 'auto' ? 'modern' : 'legacy', longTask, askingServer);
    }
);
