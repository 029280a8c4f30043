// TeX to SVG at build time, for every formula of the site in one process.
//
// Reads {"pages": [...], "alone": [...]} from stdin: each page a list of formulas, each formula
// {"tex": "...", "display": true|false}. Writes {"pages": [...], "alone": [...]}, with, per page,
// {"formulas": [...], "glyphs": "<svg ...>"}. Each formula of a page is {"eager": ..., "lazy": ...}:
// MathJax's <mjx-container> holding an SVG drawn in currentColor, with the formula's MathML
// beside it for screen readers (assistive MathML), drawn at once ("eager") or with its drawing
// waiting in a <template> after its empty SVG box ("lazy", for _ext/static/course-math-lazy.js).
// A glyph used on a page is drawn once, in the page's hidden "glyphs" SVG, and each formula
// points to it (<use href="#MJX-...">): a page with many formulas is a third of the size it
// would be with every glyph written out. A formula of "alone" is {"eager": ...} with its glyphs
// drawn inside it (a section title's formula in another page's table of contents).
// A formula MathJax cannot render is {"error": "..."} instead: the build says where it is.
'use strict';

const {mathjax} = require('mathjax-full/js/mathjax.js');
const {TeX} = require('mathjax-full/js/input/tex.js');
const {SVG} = require('mathjax-full/js/output/svg.js');
const {liteAdaptor} = require('mathjax-full/js/adaptors/liteAdaptor.js');
const {RegisterHTMLHandler} = require('mathjax-full/js/handlers/html.js');
const {AssistiveMmlHandler} = require('mathjax-full/js/a11y/assistive-mml.js');
const {AllPackages} = require('mathjax-full/js/input/tex/AllPackages.js');

function readStdin() {
  return require('fs').readFileSync(0, 'utf8');
}

// Fewer elements, the same drawing: MathJax wraps each glyph in a <g> that only names its
// MathML node (data-mml-node); a wrapper without a drawing attribute is dropped, and a
// wrapper whose only attribute is a transform hands it to each of its children (put first in
// the child's own transform list, which is the same placement) and is dropped too. The data-*
// attributes go as well (they serve MathJax's own explorer, which the site does not load).
// Lesson 4 keeps one <g> per formula (the one that flips it), down from two or three.
function slim(adaptor, node) {
  for (const child of [...adaptor.childNodes(node)]) {
    if (adaptor.kind(child) !== '#text' && adaptor.kind(child) !== '#comment') slim(adaptor, child);
  }
  if (adaptor.kind(node) === '#text') return;
  for (const {name} of adaptor.allAttributes(node)) {
    if (name.startsWith('data-')) adaptor.removeAttribute(node, name);
  }
  if (adaptor.kind(node) !== 'g' || !adaptor.parent(node)) return;
  const names = adaptor.allAttributes(node).map(({name}) => name);
  const children = adaptor.childNodes(node);
  if (names.length === 0) {
    for (const child of [...children]) adaptor.insert(child, node);
    adaptor.remove(node);
  } else if (names.length === 1 && names[0] === 'transform'
             && children.every((child) => ['use', 'g', 'rect'].includes(adaptor.kind(child)))) {
    const transform = adaptor.getAttribute(node, 'transform');
    for (const child of [...children]) {
      const own = adaptor.getAttribute(child, 'transform');
      adaptor.setAttribute(child, 'transform', own ? `${transform} ${own}` : transform);
      adaptor.insert(child, node);
    }
    adaptor.remove(node);
  }
}

// The same formula, marked data-course-lazy (put first, as the site's CSS and script expect
// it), its SVG an empty box of the same size, and the SVG's drawing in a <template> right after
// it, which the browser parses but neither styles nor lays out.
function waiting(adaptor, container) {
  const lazy = adaptor.clone(container);
  const attributes = adaptor.allAttributes(lazy);
  for (const {name} of attributes) adaptor.removeAttribute(lazy, name);
  adaptor.setAttribute(lazy, 'data-course-lazy', '');
  for (const {name, value} of attributes) adaptor.setAttribute(lazy, name, value);
  const box = adaptor.childNodes(lazy).find((child) => adaptor.kind(child) === 'svg');
  const drawing = adaptor.node('svg', {}, [...adaptor.childNodes(box)]);  // moves them
  adaptor.insert(adaptor.node('template', {}, [drawing]), adaptor.next(box));
  return adaptor.outerHTML(lazy);
}

function main() {
  const {pages, alone} = JSON.parse(readStdin());
  const adaptor = liteAdaptor();
  AssistiveMmlHandler(RegisterHTMLHandler(adaptor));
  // noundefined/noerrors are left out: an unknown macro or a TeX error must be an error.
  const packages = AllPackages.filter((name) => name !== 'noundefined' && name !== 'noerrors');
  const tex = new TeX({packages});
  const svg = new SVG({fontCache: 'global'});
  const html = mathjax.document('', {InputJax: tex, OutputJax: svg});
  const selfContained = mathjax.document('', {InputJax: new TeX({packages}),
                                              OutputJax: new SVG({fontCache: 'none'})});

  const convert = ({tex: source, display}, document = html) => {
    let node;
    try {
      node = document.convert(source, {display: Boolean(display)});
    } catch (error) {
      return {error: String(error.message || error)};
    }
    const error = adaptor.tags(node, 'merror')[0] || adaptor.tags(node, 'mjx-merror')[0];
    const errorText = error && (adaptor.getAttribute(error, 'data-mjx-error') || adaptor.textContent(error));
    if (errorText) return {error: errorText};
    for (const svg of adaptor.tags(node, 'svg')) slim(adaptor, svg);
    return {eager: adaptor.outerHTML(node), lazy: waiting(adaptor, node)};
  };
  const drawnPages = pages.map((formulas) => {
    svg.clearFontCache();
    const converted = formulas.map((formula) => convert(formula));
    const glyphs = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
      + 'id="MJX-SVG-global-cache" style="display: none" aria-hidden="true">'
      + adaptor.outerHTML(svg.fontCache.getCache()) + '</svg>';
    return {formulas: converted, glyphs};
  });
  const drawnAlone = alone.map((formula) => {
    const {eager, error} = convert(formula, selfContained);
    return error ? {error} : {eager};
  });
  process.stdout.write(JSON.stringify({pages: drawnPages, alone: drawnAlone}));
}

main();
