/* Load MathJax when the first formula comes near the screen, not with the page.
 *
 * MathJax (this script's data-mathjax attribute) typesets every formula of the page once it
 * has loaded, so one observer on all of them is enough.
 */
(function () {
  'use strict';
  var script = document.currentScript;
  var mathjaxUrl = new URL(script.dataset.mathjax, script.src).href;
  var requested = false;

  function loadMathJax() {
    if (requested) { return; }
    requested = true;
    var tag = document.createElement('script');
    tag.src = mathjaxUrl;
    tag.async = true;
    document.head.appendChild(tag);
  }

  function start() {
    var formulas = document.querySelectorAll('.math');
    if (!formulas.length) { return; }
    if (!('IntersectionObserver' in window)) { loadMathJax(); return; }
    var observer = new IntersectionObserver(function (entries) {
      if (entries.some(function (entry) { return entry.isIntersecting; })) {
        observer.disconnect();
        loadMathJax();
      }
    }, {rootMargin: '600px 0px'});
    formulas.forEach(function (formula) { observer.observe(formula); });
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
})();
