// The site's one stylesheet, at build time.
//
// Reads a JSON request, one line on stdin:
//   {"sheets": [{"path": "/abs/theme.css", "purge": true}, ...],   the head's sheets, in order
//    "bundle": "/abs/_static/styles/course-site.css",            where the bundle will live
//    "content": ["/abs/page.html", ...] or null,                    null: do not purge
//    "askFonts": true}                                              optional: see below
// Each sheet has its @import rules inlined (postcss-import) and its url()s rebased from its
// own folder to the bundle's (postcss-url). With "content", PurgeCSS drops the rules of each
// sheet marked "purge" that no page and no script can use: a rule stays when every class, id
// and attribute its selector names occurs as a word in one of the content files (a script
// that adds a class at run time names it, so its rules stay). Custom properties, @font-face
// and @keyframes are kept, and so are the theme's light and dark rules. With "askFonts", once
// the rules are known the script writes the icons they draw as one line ({"icons": [...]}) and
// reads the fonts to draw them with as the next line of stdin ({"fa-solid-900":
// "data:font/woff;base64,..."}): each @font-face whose src names one of those font files gets
// that source instead.
// Prints {"css": "...", "icons": [code points]}: the bundle, and the private-use characters
// (icon glyphs) that its rules write with `content`, each given an empty alternative text.
// Any error ends the process with status 1.
'use strict';

const fs = require('fs');
const path = require('path');
const readline = require('readline');
const postcss = require('postcss');
const postcssImport = require('postcss-import');
const postcssUrl = require('postcss-url');
const {PurgeCSS} = require('purgecss');

async function resolved(sheet, bundle) {
  const css = fs.readFileSync(sheet.path, 'utf8');
  const result = await postcss([postcssImport(), postcssUrl({url: 'rebase'})])
    .process(css, {from: sheet.path, to: bundle});
  result.root.walkComments((comment) => {
    if (comment.text.startsWith('# sourceMappingURL')) { comment.remove(); }
  });
  result.root.walkAtRules('charset', (rule) => rule.remove());
  return result.root.toString();
}

// The code points a CSS string writes ("\f185" or the character itself).
function codePoints(value) {
  const points = [];
  for (let index = 0; index < value.length; index += 1) {
    if (value[index] === '\\') {
      let hex = '';
      while (hex.length < 6 && /[0-9a-f]/i.test(value[index + 1] || '')) { hex += value[++index]; }
      if (hex) { points.push(parseInt(hex, 16)); }
    } else {
      points.push(value.codePointAt(index));
    }
  }
  return points;
}

function isIcon(point) { return point >= 0xe000 && point <= 0xf8ff; }

// Every custom property the sheets set, with each value they give it.
function customProperties(root) {
  const properties = new Map();
  root.walkDecls((declaration) => {
    if (!declaration.prop.startsWith('--')) { return; }
    properties.set(declaration.prop, (properties.get(declaration.prop) || []).concat(declaration.value));
  });
  return properties;
}

// The icon characters a value draws: written in it, or in a custom property it reads
// (the theme's admonition titles: `content: var(--pst-icon-admonition-tip)`).
function drawnIcons(value, properties, seen = new Set()) {
  const points = codePoints(value).filter(isIcon);
  for (const [, name] of value.matchAll(/var\(\s*(--[\w-]+)/g)) {
    if (seen.has(name)) { continue; }
    seen.add(name);
    (properties.get(name) || []).forEach((text) => points.push(...drawnIcons(text, properties, seen)));
  }
  return points;
}

function useFonts(root, fonts) {
  root.walkAtRules('font-face', (rule) => {
    rule.walkDecls('src', (declaration) => {
      const name = Object.keys(fonts).find((font) => declaration.value.includes(`/${font}.`));
      if (name) { declaration.value = `url(${fonts[name]}) format("woff")`; }
    });
  });
}

async function main() {
  const input = readline.createInterface({input: process.stdin});
  const lines = input[Symbol.asyncIterator]();
  const readMessage = async () => {
    const line = await lines.next();
    if (line.done) { throw new Error('stdin ended before a message'); }
    return JSON.parse(line.value);
  };
  const request = await readMessage();
  const texts = [];
  for (const sheet of request.sheets) { texts.push(await resolved(sheet, request.bundle)); }
  if (request.content) {
    const purged = request.sheets.map((sheet, index) => ({sheet, index})).filter(({sheet}) => sheet.purge);
    const results = await new PurgeCSS().purge({
      css: purged.map(({index}) => ({raw: texts[index]})),
      content: request.content,
      safelist: {greedy: [/data-theme/, /data-mode/]},
    });
    purged.forEach(({index}, position) => { texts[index] = results[position].css; });
  }
  const root = postcss.root();
  request.sheets.forEach((sheet, index) => {
    root.append(postcss.comment({text: ` ${path.relative(path.dirname(request.bundle), sheet.path)} `}));
    root.append(postcss.parse(texts[index]));
  });
  const icons = new Set();
  const properties = customProperties(root);
  root.walkDecls('content', (declaration) => {
    const drawn = drawnIcons(declaration.value, properties);
    drawn.forEach((point) => icons.add(point));
    // An icon is a picture, not a word: its alternative text is empty, so a screen reader does
    // not read a private-use character into the name of the link or button that holds it
    // ("\uf104 Previous"). A browser without CSS alternative text keeps the declaration before.
    if (drawn.length && !declaration.value.includes('/')) {
      declaration.cloneAfter({value: `${declaration.value} / ""`});
    }
  });
  const points = [...icons].sort((a, b) => a - b);
  if (request.askFonts) {
    process.stdout.write(JSON.stringify({icons: points}) + '\n');
    useFonts(root, await readMessage());
  }
  input.close();  // nothing more to read: the script ends when it has answered
  const css = '@charset "UTF-8";\n' + root.toString() + '\n';
  process.stdout.write(JSON.stringify({css, icons: points}));  // no newline: not a question
}

main().catch((error) => {
  process.stderr.write(`bundle_css.js: ${error.stack || error}\n`);
  process.exit(1);
});
