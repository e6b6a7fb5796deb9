// Two agents that work together through the bridge: a reviewer and a
// fixer, coordinating only through the project's context bus and messages
// (docs/collaboration.md). This control plane starts both sessions and
// sends one message, to the reviewer; from then on the agents drive:
//
//   1. the reviewer posts its findings to the bus (thread T, meant for the
//      fixer) and messages the fixer, delivered as the fixer's next turn;
//   2. the fixer reads the thread, fixes, posts what it did and messages
//      the reviewer back, delivered as the reviewer's next turn;
//   3. the reviewer checks and posts its verdict.
//
// The control plane only watches: it waits for the verdict, then reads the
// thread and its own inbox as a person and stops both sessions.
//
//   npm run dev                                  # terminal 1: the dev daemon
//   node examples/review-and-fix.mjs             # terminal 2 (see examples/README.md)
//
// With real agents (BRIDGE_PROVIDER=claude, codex, opencode or gemini) the
// instructions below are all they get, and the fixer really edits the
// repository. The built-in mock agent cannot read instructions, so for it
// each instruction carries the tool calls it stands for, as "/bridge <tool>
// <json>" lines the mock performs (internal/providers/bin/mock-agent.mjs).
//
// Environment: as examples/minimal-control-plane.mjs (BRIDGE_TARGET,
// BRIDGE_CA, BRIDGE_CERT, BRIDGE_KEY, BRIDGE_JWT_KEY, BRIDGE_ISSUER,
// BRIDGE_PROJECT, BRIDGE_REPO, BRIDGE_PROVIDER), and
//   BRIDGE_REVIEW_FILE  the file to review, relative to the repository   README.md
//   BRIDGE_TIMEOUT_MS   how long the whole review may take                300000
import { randomUUID } from 'node:crypto';
import { BridgeClient } from '@agent-bridge/bridgeclient';

const env = (name, fallback) => process.env[name] || fallback;
const provider = env('BRIDGE_PROVIDER', 'mock');
const file = env('BRIDGE_REVIEW_FILE', 'README.md');
const timeoutMs = Number(env('BRIDGE_TIMEOUT_MS', '300000'));
const run = randomUUID().slice(0, 8);
const thread = `review-${run}`;
// Names are unique among the project's live sessions: one pair per run.
const names = { reviewer: `reviewer-${run}`, fixer: `fixer-${run}` };

const client = new BridgeClient({
  target: env('BRIDGE_TARGET', 'localhost:9445'),
  mtls: {
    ca: env('BRIDGE_CA', 'certs/dev/ca.crt'),
    cert: env('BRIDGE_CERT', 'certs/dev/client.crt'),
    key: env('BRIDGE_KEY', 'certs/dev/client.key'),
    serverName: env('BRIDGE_SERVER_NAME'),
  },
  jwt: {
    privateKey: env('BRIDGE_JWT_KEY', 'certs/dev/jwt.key'),
    issuer: env('BRIDGE_ISSUER', 'dev'),
    subject: 'review-and-fix',
    projectId: env('BRIDGE_PROJECT', 'dev'),
  },
});

/** For the mock only: the tool calls an instruction stands for, one "/bridge" line each. */
const calls = (...lines) =>
  provider === 'mock'
    ? `\n${lines.map(([tool, args]) => `/bridge ${tool} ${JSON.stringify(args)}`).join('\n')}`
    : '';

// What each step asks, innermost first: the message the fixer sends back
// carries the reviewer's last step, the message the reviewer sends carries
// the fixer's.
const verdictStep =
  `The fixer says the findings of thread ${thread} are fixed. Check its "fix" posts ` +
  `in that thread (context_read) against ${file}, then post your verdict with ` +
  `context_post: category "verdict", thread_id "${thread}", "approved" or what is left.` +
  calls(
    ['context_read', { thread_id: thread, category: 'fix' }],
    [
      'context_post',
      {
        category: 'verdict',
        thread_id: thread,
        content: `approved: the findings on ${file} are fixed`,
      },
    ],
  );
const fixStep =
  `Read the findings of thread ${thread} on the context bus (context_read with ` +
  `thread_id "${thread}"), fix each one in ${file}, acknowledge them (context_ack), ` +
  `post what you changed (context_post: category "fix", thread_id "${thread}"), then ` +
  `message the session named ${names.reviewer} with message_send, deliver "turn", ` +
  `thread_id "${thread}", asking it to check the fixes.` +
  calls(
    ['context_read', { thread_id: thread, category: 'finding' }],
    [
      'context_post',
      {
        category: 'fix',
        thread_id: thread,
        targets: [names.reviewer],
        content: `fixed the findings on ${file} (the mock edits nothing)`,
      },
    ],
    [
      'message_send',
      { to: names.reviewer, deliver: 'turn', thread_id: thread, content: verdictStep },
    ],
  );
const reviewStep =
  `You are the reviewer. Review ${file} in this repository; do not change any file. ` +
  `Post each problem you find to the bridge's context bus with context_post: ` +
  `category "finding", priority "high" for a real defect, thread_id "${thread}", ` +
  `targets ["${names.fixer}"], metadata {"file": "${file}"}. Then message the ` +
  `session named ${names.fixer} with message_send, deliver "turn", thread_id ` +
  `"${thread}", and these words: ${JSON.stringify(fixStep)}` +
  calls(
    [
      'context_post',
      {
        category: 'finding',
        priority: 'high',
        thread_id: thread,
        targets: [names.fixer],
        metadata: { file },
        content: `${file}: the quick start does not say which Node version it needs`,
      },
    ],
    [
      'context_post',
      {
        category: 'finding',
        thread_id: thread,
        targets: [names.fixer],
        metadata: { file },
        content: `${file}: a command in the examples section has no expected output`,
      },
    ],
    ['message_send', { to: names.fixer, deliver: 'turn', thread_id: thread, content: fixStep }],
  );

/** One line per collaboration event of a session, as the control plane sees it. */
function show(who, e) {
  const d = e.data ?? {};
  if (e.type === 'CONTEXT_POSTED' && d.from_kind === 'session' && d.from === names[who]) {
    console.log(`  ${who} posted #${d.post_id} [${d.category}] ${firstLine(e.text)}`);
  } else if (e.type === 'MESSAGE_RECEIVED') {
    console.log(`  ${who} received message ${d.message_id} from ${d.from} (${d.deliver})`);
  } else if (e.type === 'TURN_STARTED') {
    console.log(`  ${who} started a turn`);
  } else if (e.type === 'SESSION_FAILED') {
    throw new Error(`the ${who} failed: ${e.error || e.text}`);
  }
}

const firstLine = (text) => text.split('\n')[0].slice(0, 100);

/** Watches a session's events until each of `steps` happened, in order; rejects after the deadline. */
async function watch(who, sessionId, steps, signal) {
  let step = 0;
  for await (const e of client.events(sessionId, { signal })) {
    show(who, e);
    if (steps[step](e) && ++step === steps.length) return;
  }
  throw new Error(`the ${who}'s session ended before the review did`);
}

const started = [];
const deadline = AbortSignal.timeout(timeoutMs);
try {
  for (const [role, name] of Object.entries(names)) {
    const s = await client.startSession({
      provider,
      repoPath: env('BRIDGE_REPO', process.cwd()),
      name,
      role,
    });
    started.push(s.sessionId);
    console.log(`${role} ${name}: session ${s.sessionId} (${provider})`);
  }
  const [reviewer, fixer] = started;

  console.log(`review of ${file}, thread ${thread}:`);
  // Each is done once its last turn has ended: the fixer's after it messaged
  // the reviewer, the reviewer's after it posted the verdict.
  const turnEnded = (e) => e.type === 'TURN_COMPLETED';
  const fixerDone = watch('fixer', fixer, [(e) => e.type === 'MESSAGE_SENT', turnEnded], deadline);
  const verdict = watch(
    'reviewer',
    reviewer,
    [(e) => e.type === 'CONTEXT_POSTED' && e.data?.category === 'verdict', turnEnded],
    deadline,
  );
  // The one thing the control plane says: a message to the reviewer, as its first turn.
  await client.messages.send({ session: names.reviewer }, reviewStep, {
    deliver: 'turn',
    threadId: thread,
  });
  await Promise.all([fixerDone, verdict]);

  // Read as a person: the whole thread, in order.
  const { posts } = await client.context.read({ threadId: thread });
  console.log(`thread ${thread} on the context bus:`);
  for (const p of posts) {
    const author = `${p.from.name || p.from.id} (${p.from.role || p.from.kind})`;
    console.log(`  #${p.id} ${author} [${p.category}/${p.priority}] ${firstLine(p.content)}`);
  }
} catch (err) {
  console.error(`${err.name}: ${err.message}`);
  process.exitCode = 1;
} finally {
  for (const id of started) await client.stopSession(id).catch(() => undefined);
  client.close();
}
