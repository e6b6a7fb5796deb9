// A review council: the same question to several agents, each answer a
// task (runTask) with its report; then a second round in which each agent
// reads the others' answers and revises its own; then where they agree.
//
//   npm run dev                                  # terminal 1: the dev daemon
//   node examples/review-council.mjs             # terminal 2 (see examples/README.md)
//
// Environment; the defaults reach the daemon of `npm run dev` from the
// repository root:
//   BRIDGE_COUNCIL      the members' providers, comma-separated  mock,mock,mock
//                       (e.g. claude,codex,gemini: one member each)
//   BRIDGE_QUESTION     what the council is asked                a review question about BRIDGE_REPO
//   BRIDGE_TIMEOUT_MS   how long each member's task may take     300000
// and the connection variables of minimal-control-plane.mjs: BRIDGE_TARGET,
// BRIDGE_SERVER_NAME, BRIDGE_CA, BRIDGE_CERT, BRIDGE_KEY, BRIDGE_JWT_KEY,
// BRIDGE_ISSUER, BRIDGE_PROJECT, BRIDGE_REPO.
//
// Members whose provider the daemon cannot run are reported SKIPPED and sit
// out; only answers of COMPLETED tasks are shared in round two. The exit
// status is 1 when any task did not complete.
import { BridgeClient } from '@agent-bridge/bridgeclient';

const env = (name, fallback) => process.env[name] || fallback;

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
    subject: 'review-council',
    projectId: env('BRIDGE_PROJECT', 'dev'),
  },
});
const repoPath = env('BRIDGE_REPO', process.cwd());
const timeoutMs = Number(env('BRIDGE_TIMEOUT_MS', '300000'));
const question = env(
  'BRIDGE_QUESTION',
  'Review this repository: what is its biggest risk, and what should be fixed first? Answer in three sentences.',
);
// Members are named by provider and place, so two mock members stay apart.
const members = env('BRIDGE_COUNCIL', 'mock,mock,mock')
  .split(',')
  .map((provider, i) => ({ name: `${provider.trim()}#${i + 1}`, provider: provider.trim() }));

/** A report in a few lines: status, session, events, usage, then the answer (or why not). */
function printReport(name, r) {
  const parts = [r.status, `${(r.durationMs / 1000).toFixed(1)}s`];
  if (r.sessionId) parts.push(`session ${r.sessionId}`, `events ${r.firstSeq}-${r.lastSeq}`);
  const u = r.usage ?? {};
  if (typeof u.input_tokens === 'number') {
    parts.push(`${u.input_tokens} in / ${u.output_tokens ?? 0} out tokens`);
  }
  if (r.costUsd !== undefined) parts.push(`$${r.costUsd.toFixed(4)}`);
  console.log(`  ${name}: ${parts.join(' · ')}`);
  if (r.error) console.log(`    why: ${r.error}`);
  for (const line of r.summary.split('\n')) console.log(`    | ${line}`);
}

/** Runs one task per member at once; prints each report; returns them by member name. */
async function round(title, seated, promptFor) {
  console.log(title);
  const reports = await Promise.all(
    seated.map((m) =>
      client.runTask({ provider: m.provider, repoPath, prompt: promptFor(m), timeoutMs }),
    ),
  );
  const byName = new Map();
  seated.forEach((m, i) => {
    printReport(m.name, reports[i]);
    byName.set(m.name, reports[i]);
  });
  return byName;
}

/** The second round's prompt: the question, the others' completed answers, and the request to revise. */
function revisionPrompt(member, first) {
  const others = members
    .filter((m) => m.name !== member.name && first.get(m.name)?.status === 'COMPLETED')
    .map((m) => `--- ${m.name} answered:\n${first.get(m.name).summary}`);
  return [
    question,
    '',
    `Your first answer:\n${first.get(member.name)?.summary || '(none)'}`,
    '',
    'The other members of the review council answered:',
    ...others,
    '',
    'Revise your answer in the light of theirs: keep what you still hold, drop what they showed wrong.',
  ].join('\n');
}

// The agreement heuristic, deliberately simple and said as it is: a
// sentence counts as agreed when every revised answer contains it
// (compared lowercased, whitespace collapsed); a keyword when every revised
// answer uses the word (5+ letters, a few filler words left out).
const FILLER = new Set([
  'about',
  'there',
  'their',
  'which',
  'would',
  'should',
  'could',
  'these',
  'those',
  'answer',
  'answered',
]);
const normalise = (s) => s.toLowerCase().replace(/\s+/g, ' ').trim();
const sentencesOf = (text) =>
  new Set(
    text
      .split(/(?<=[.!?])\s+|\n+/)
      .map(normalise)
      .filter((s) => s.length > 0),
  );
const wordsOf = (text) =>
  new Set((text.toLowerCase().match(/[a-z][a-z'-]{4,}/g) ?? []).filter((w) => !FILLER.has(w)));
const inAll = (sets) => [...(sets[0] ?? [])].filter((x) => sets.every((s) => s.has(x)));

try {
  console.log(`council: ${members.map((m) => m.name).join(', ')} on ${client.target}`);
  console.log(`question: ${question}`);

  const first = await round('round 1: each member answers alone', members, () => question);
  const answered = members.filter((m) => first.get(m.name).status === 'COMPLETED');
  const second =
    answered.length > 0
      ? await round('round 2: each member reads the others and revises', answered, (m) =>
          revisionPrompt(m, first),
        )
      : new Map();

  const revised = [...second.values()]
    .filter((r) => r.status === 'COMPLETED')
    .map((r) => r.summary);
  console.log(`agreement across ${revised.length} revised answers:`);
  if (revised.length < 2) {
    console.log('  fewer than two revised answers: nothing to compare');
  } else {
    const sentences = inAll(revised.map(sentencesOf));
    console.log(`  sentences in every answer: ${sentences.length}`);
    for (const s of sentences) console.log(`    - ${s}`);
    console.log(
      `  words every answer uses: ${inAll(revised.map(wordsOf)).sort().join(', ') || 'none'}`,
    );
  }
  const all = [...first.values(), ...second.values()];
  if (all.some((r) => r.status !== 'COMPLETED')) process.exitCode = 1;
} finally {
  client.close();
}
