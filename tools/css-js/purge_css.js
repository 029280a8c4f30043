// Drop the CSS rules no page of the site can use, at build time.
//
// Reads {"sheets": ["css text", ...], "content": ["page.html", "script.js", ...]} from stdin.
// PurgeCSS keeps a rule when every class, id and attribute its selector names occurs as a word
// in one of the content files: the built pages and every script the site serves (a script
// that adds a class at run time names it, so its rules stay). Custom properties, @font-face
// and @keyframes are all kept. The theme's light and dark rules are always kept.
// Prints the sheets, in the same order, as a JSON list of CSS texts.
// Any error ends the process with status 1.
'use strict';

const fs = require('fs');
const {PurgeCSS} = require('purgecss');

async function main() {
  const request = JSON.parse(fs.readFileSync(0, 'utf8'));
  const results = await new PurgeCSS().purge({
    css: request.sheets.map((raw) => ({raw})),
    content: request.content,
    safelist: {greedy: [/data-theme/, /data-mode/]},
  });
  process.stdout.write(JSON.stringify(results.map((result) => result.css)));
}

main().catch((error) => {
  process.stderr.write(`purge_css.js: ${error.stack || error}\n`);
  process.exit(1);
});
