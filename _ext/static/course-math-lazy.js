/* Formulas further down the page are drawn when they come near the screen.
 *
 * math_svg.py leaves each of them its SVG box, at its final size, and puts its glyphs in a
 * <template> right after it: parsed, but neither styled nor laid out while the page loads.
 * When a formula comes within a screen's height of the screen, its glyphs move into its SVG.
 * A few formulas are drawn per frame, so that drawing never holds up the reader's scrolling
 * or typing. Before printing, every formula is drawn.
 */
(function () {
  'use strict';

  var WAITING = 'mjx-container[data-course-lazy]';
  var GLYPHS_PER_FRAME = 250;  // <use> and <rect> elements: a few milliseconds on a phone
  var queue = [];
  var frameRequested = false;

  function draw(container) {
    var template = container.querySelector(':scope > template');
    var svg = container.querySelector(':scope > svg');
    if (template && svg) {
      var drawing = template.content.firstElementChild;
      while (drawing && drawing.firstChild) { svg.appendChild(drawing.firstChild); }
      template.remove();
    }
    container.removeAttribute('data-course-lazy');
  }

  function size(container) {
    var template = container.querySelector(':scope > template');
    return template ? template.content.querySelectorAll('*').length : 0;
  }

  function drawSome() {
    frameRequested = false;
    var glyphs = 0;
    while (queue.length && glyphs < GLYPHS_PER_FRAME) {
      var container = queue.shift();
      glyphs += size(container);
      draw(container);
    }
    if (queue.length) { requestFrame(); }
  }

  function requestFrame() {
    if (!frameRequested) {
      frameRequested = true;
      requestAnimationFrame(drawSome);
    }
  }

  function drawAll() {
    document.querySelectorAll(WAITING).forEach(draw);
    queue = [];
  }

  function start() {
    var waiting = document.querySelectorAll(WAITING);
    if (!waiting.length) { return; }
    var near = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (entry.isIntersecting) {
          near.unobserve(entry.target);
          queue.push(entry.target);
        }
      });
      requestFrame();
    }, {rootMargin: '100% 0px'});
    waiting.forEach(function (container) { near.observe(container); });
    window.addEventListener('beforeprint', function () { near.disconnect(); drawAll(); });
  }

  start();  // deferred, as every script of the site: the page is parsed
})();
