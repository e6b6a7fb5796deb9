#!/usr/bin/env node
import { spawnSync } from 'node:child_process';
// Builds bridgectl's web console (cmd/bridgectl/console) into
// cmd/bridgectl/dist/console-assets: type-checks the page with tsc, bundles
// it with esbuild (Preact and its signals inside, nothing loaded from
// elsewhere), and copies its HTML and CSS. `npm run build` and the test
// suite's global set-up run it; the package ships what it writes.
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = join(root, 'cmd', 'bridgectl');
const src = join(pkg, 'console');
const out = join(pkg, 'dist', 'console-assets');

export async function buildConsole({ typecheck = true } = {}) {
  const require = createRequire(join(root, 'package.json'));
  if (typecheck) {
    const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
    const r = spawnSync(process.execPath, [tsc, '-p', join(src, 'tsconfig.json')], {
      stdio: 'inherit',
    });
    if (r.status !== 0) throw new Error('build-console: the console page has type errors (above)');
  }
  const esbuild = await import(require.resolve('esbuild'));
  mkdirSync(out, { recursive: true });
  await esbuild.build({
    entryPoints: [join(src, 'src', 'main.tsx')],
    outfile: join(out, 'app.js'),
    bundle: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    sourcemap: false,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: join(src, 'tsconfig.json'),
    logLevel: 'warning',
    legalComments: 'eof',
  });
  copyFileSync(join(src, 'index.html'), join(out, 'index.html'));
  copyFileSync(join(src, 'app.css'), join(out, 'app.css'));
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const dir = await buildConsole();
    process.stderr.write(`build: the console page in ${dir}\n`);
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}
