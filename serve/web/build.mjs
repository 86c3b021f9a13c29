// Builds the page of `szero serve` into dist/: app.js (src/main.js with chessgroundx,
// bundled and minified by esbuild), app.css (chessgroundx's board CSS, the pieces, and
// src/style.css) and index.html. The output depends only on the sources and the locked
// packages, so CI can rebuild it and compare (scripts/build-web --check).
//
// Pieces: chessgroundx ships lichess's cburnett SVGs under lichess's class names
// (`piece.knight.white`); chessgroundx itself names roles `n-piece`. They are renamed
// here, and the Elephant (rook + knight) and Hawk (bishop + knight) are drawn as their
// slider with a small knight at its foot, from the same SVGs.
import * as esbuild from 'esbuild';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] ?? join(here, 'dist');
mkdirSync(out, { recursive: true });
const cg = join(here, 'node_modules', 'chessgroundx', 'assets');

const svgs = {};
const cburnett = readFileSync(join(cg, 'chessground.cburnett.css'), 'utf8');
for (const m of cburnett.matchAll(/piece\.(\w+)\.(white|black)\s*\{\s*background-image:\s*url\('([^']+)'\)/g)) {
  svgs[`${m[1]}.${m[2]}`] = m[3];
}
const roles = { pawn: 'p', knight: 'n', bishop: 'b', rook: 'r', queen: 'q', king: 'k' };
let pieces = '/* Pieces: cburnett (chessgroundx assets, GPL), renamed to chessgroundx roles by build.mjs */\n';
for (const color of ['white', 'black']) {
  for (const [name, letter] of Object.entries(roles)) {
    const url = svgs[`${name}.${color}`];
    if (!url) throw new Error(`no ${name}.${color} in chessground.cburnett.css`);
    pieces += `piece.${letter}-piece.${color} { background-image: url('${url}'); }\n`;
  }
  for (const [letter, slider] of [['e', 'rook'], ['h', 'bishop']]) {
    pieces +=
      `piece.${letter}-piece.${color} { background-image: url('${svgs[`knight.${color}`]}'), url('${svgs[`${slider}.${color}`]}');` +
      ` background-size: 52% 52%, 88% 88%; background-position: 100% 100%, 0 0; background-repeat: no-repeat; }\n`;
  }
}
const css = [
  readFileSync(join(cg, 'chessground.base.css'), 'utf8'),
  readFileSync(join(cg, 'chessground.brown.css'), 'utf8'),
  pieces,
  readFileSync(join(here, 'src', 'style.css'), 'utf8'),
].join('\n');
writeFileSync(join(out, 'app.css'), css);
writeFileSync(join(out, 'index.html'), readFileSync(join(here, 'src', 'index.html'), 'utf8'));
await esbuild.build({
  entryPoints: [join(here, 'src', 'main.js')],
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2020',
  legalComments: 'none',
  outfile: join(out, 'app.js'),
  logLevel: 'warning',
});
