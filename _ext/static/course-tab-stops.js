/* A box that scrolls sideways takes the keyboard focus (so it can be scrolled with the arrow
 * keys); a box that does not scroll is no tab stop.
 *
 * The theme decides this once, when the page has loaded, for code blocks and outputs only.
 * Here the boxes, wide formulas too, are watched once the page has loaded and the browser is
 * idle, and each box is measured when the browser has laid it out anyway: when it comes near
 * the screen and whenever its size changes. Nothing is written before a box is measured, so
 * the page's style is not recomputed for nothing, and a box that starts or stops scrolling
 * when the window is resized follows.
 */
(function () {
  'use strict';

  var BOXES = ['pre', '.nboutput > .output_area', '.cell_output > .output', '.jp-RenderedHTMLCommon',
               '.pst-scrollable-table-container', 'div.math.course-math > mjx-container'].join(', ');

  function tabStop(box) {
    return box.scrollWidth > box.clientWidth || box.scrollHeight > box.clientHeight ? 0 : -1;
  }

  // Measure every reported box first, then change the ones that differ: a change between two
  // measurements would make the browser recompute the page's style before the next one.
  function updateAll(entries) {
    var boxes = entries.map(function (entry) { return entry.target; });
    var stops = boxes.map(tabStop);
    boxes.forEach(function (box, index) {
      if (box.tabIndex !== stops[index]) { box.tabIndex = stops[index]; }
    });
  }
  // A box is measured when its size changes and when it comes near the screen (a box inside
  // a folded cell is shown without changing size).
  var sizes = new ResizeObserver(updateAll);
  var sight = new IntersectionObserver(updateAll, {rootMargin: '200px'});
  var watched = new WeakSet();

  function watch(root) {
    root.querySelectorAll(BOXES).forEach(function (box) {
      if (watched.has(box)) { return; }
      watched.add(box);
      sizes.observe(box);
      sight.observe(box);
    });
  }

  function start() {
    var main = document.getElementById('main-content') || document.body;
    watch(main);
    new MutationObserver(function () { watch(main); }).observe(main, {subtree: true, childList: true});
  }

  function whenIdle() {
    if (window.requestIdleCallback) {
      window.requestIdleCallback(start, {timeout: 2000});
    } else {
      window.setTimeout(start, 0);
    }
  }

  window.addEventListener('load', whenIdle);  // deferred: the page has not loaded yet
})();
