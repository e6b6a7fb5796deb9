/**
 * A text for each built-in redaction rule with the secret it must find, and
 * a look-alike no rule may touch: shared by the rules' tests and the
 * streamed-message tests.
 */
// Secrets are assembled at run time so this file holds no literal credential.
const rep = (s: string, n: number) => s.repeat(n);
export const alnum = (n: number) => rep('A1b2C3d4E5', Math.ceil(n / 10)).slice(0, n);

export interface Case {
  /** A text the rule alone must find `secret` in. */
  hit: string;
  secret: string;
  /** A look-alike no built-in rule may touch. */
  near: string;
}

/** One case per built-in rule, by rule id. */
export const CASES: Record<string, Case> = {
  'private-key': {
    hit: `-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7${alnum(60)}\n-----END RSA PRIVATE KEY-----`,
    secret: `MIIEowIBAAKCAQEA7${alnum(60)}`,
    near: `-----BEGIN CERTIFICATE-----\nMIIB${alnum(60)}\n-----END CERTIFICATE-----`,
  },
  'private-key-tail': {
    hit: `b3BlbnNzaC1rZXktdjE${alnum(50)}\n-----END OPENSSH PRIVATE KEY----- done`,
    secret: `b3BlbnNzaC1rZXktdjE${alnum(50)}`,
    near: `MIIB${alnum(50)}\n-----END PUBLIC KEY-----`,
  },
  'aws-access-key-id': {
    hit: `id AKIA${'IOSFODNN7EXAMPLE'} used`,
    secret: 'AKIAIOSFODNN7EXAMPLE',
    near: `id AKIA${'IOSFODNN7EXAMPLE'}X used`,
  },
  'aws-secret-access-key': {
    hit: `SecretAccessKey ${'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'}`,
    secret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    near: `SecretAccessKey ${'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKE'}`,
  },
  'github-token': {
    hit: `push with ghp_${alnum(36)} and github_pat_${alnum(22)}_${alnum(59)}`,
    secret: `ghp_${alnum(36)}`,
    near: `push with ghp_${alnum(35)} ok`,
  },
  'anthropic-api-key': {
    hit: `ANTHROPIC=sk-ant-api03-${alnum(80)}AA`,
    secret: `sk-ant-api03-${alnum(80)}AA`,
    near: `the sk-ant-${alnum(12)} step`,
  },
  'openai-api-key': {
    hit: `key sk-proj-${alnum(48)} set`,
    secret: `sk-proj-${alnum(48)}`,
    near: 'see risk-assessment-for-production-rollout-plan',
  },
  'google-api-key': {
    hit: `maps AIza${alnum(35)} loaded`,
    secret: `AIza${alnum(35)}`,
    near: `maps AIza${alnum(34)} loaded`,
  },
  'slack-token': {
    hit: `bot xoxb-1234567890-${alnum(24)}`,
    secret: `xoxb-1234567890-${alnum(24)}`,
    near: 'bot xoxb-12345 short',
  },
  'slack-webhook': {
    hit: `post https://hooks.slack.com/services/T0000/B0000/${alnum(24)} now`,
    secret: `T0000/B0000/${alnum(24)}`,
    near: 'see https://hooks.slack.com/help for more',
  },
  'stripe-key': {
    hit: `charge sk_live_${alnum(24)}`,
    secret: `sk_live_${alnum(24)}`,
    near: `charge sk_live_${alnum(15)}`,
  },
  'npm-token': {
    hit: `//registry.npmjs.org/:_authToken npm_${alnum(36)}`,
    secret: `npm_${alnum(36)}`,
    near: 'npm_config_cache is set',
  },
  'gitlab-token': {
    hit: `clone glpat-${alnum(20)}`,
    secret: `glpat-${alnum(20)}`,
    near: `clone glpat-${alnum(19)}`,
  },
  'huggingface-token': {
    hit: `login hf_${rep('abcdEFGH', 5).slice(0, 34)}`,
    secret: `hf_${rep('abcdEFGH', 5).slice(0, 34)}`,
    near: 'call hf_hub_download first',
  },
  jwt: {
    hit: 'id eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLXZhbHVl end',
    secret: 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLXZhbHVl',
    near: 'header eyJhbGciOiJFZERTQSJ9 only',
  },
  'bearer-token': {
    hit: `sent Bearer ${alnum(24)} upstream`,
    secret: alnum(24),
    near: 'the bearer of bad news',
  },
  'authorization-header': {
    hit: 'Authorization: Basic dXNlcjpwYXNzd29yZA== next',
    secret: 'dXNlcjpwYXNzd29yZA==',
    near: 'authorization required for this call',
  },
  'cookie-header': {
    hit: 'Set-Cookie: session=abc123def456; Path=/',
    secret: 'session=abc123def456',
    near: 'the cookie policy was accepted',
  },
  'url-password': {
    hit: 'remote https://alice:s3cr3tpassw0rd@git.example.com/repo.git',
    secret: 's3cr3tpassw0rd',
    near: 'remote https://git.example.com:8443/repo.git by alice@example.com',
  },
  'secret-json-pair': {
    hit: '{"client_secret": "abc123def456", "n": 1}',
    secret: 'abc123def456',
    near: '{"monkey": "banana", "max_tokens": 4096}',
  },
  'secret-assignment': {
    hit: 'export DB_PASSWORD=hunter2hunter2 && run',
    secret: 'hunter2hunter2',
    near: 'password_hint=the first pet, max_tokens=4096',
  },
};
