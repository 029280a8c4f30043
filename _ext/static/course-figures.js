/* Draw the page's Plotly figures when they come near the screen.
 *
 * Each figure is a <div class="course-plot"> at its final size, holding a light preview,
 * followed by <script type="application/json" class="course-plot-spec" data-for="ID">.
 * plotly.js (the smallest bundle that draws this page's traces; this script's
 * data-plotly attribute) is loaded the first time a figure is about to be seen. After
 * each figure is drawn the document receives a 'course:figure-drawn' event whose
 * detail.element is the figure's div.
 */
(function () {
  'use strict';
  var script = document.currentScript;
  var bundleUrl = new URL(script.dataset.plotly, script.src).href;
  var NARROW = 600;  // px: below this width the layout is adjusted for a phone
  var loading = null;

  function loadPlotly() {
    if (window.Plotly) { return Promise.resolve(window.Plotly); }
    if (!loading) {
      loading = new Promise(function (resolve, reject) {
        var tag = document.createElement('script');
        tag.src = bundleUrl;
        tag.async = true;
        tag.onload = function () { resolve(window.Plotly); };
        tag.onerror = function () { reject(new Error('could not load ' + bundleUrl)); };
        document.head.appendChild(tag);
      });
    }
    return loading;
  }

  function specFor(gd) {
    var holder = document.querySelector('script.course-plot-spec[data-for="' + gd.id + '"]');
    return JSON.parse(holder.textContent);
  }

  // On a phone: smaller fonts, slimmer side margins, the title below the toolbar.
  function fitToWidth(layout, width) {
    if (width >= NARROW) { return layout; }
    var fitted = Object.assign({}, layout);
    var margin = Object.assign({l: 80, r: 80, t: 100, b: 80}, layout.margin || {});
    fitted.margin = Object.assign({}, margin, {
      l: Math.min(margin.l, 48), r: Math.min(margin.r, 16), t: Math.max(margin.t, 64)});
    fitted.font = Object.assign({}, layout.font || {}, {size: 11});
    if (layout.title) {
      var title = typeof layout.title === 'string' ? {text: layout.title} : layout.title;
      fitted.title = Object.assign({}, title, {
        font: Object.assign({}, title.font || {}, {size: 13}),
        x: 0, xanchor: 'left', xref: 'paper', y: 1, yanchor: 'bottom', yref: 'container',
        pad: {t: 34}
      });
    }
    return fitted;
  }

  function draw(gd) {
    if (gd.dataset.state) { return; }
    gd.dataset.state = 'loading';
    var spec = specFor(gd);
    loadPlotly().then(function (Plotly) {
      var config = {responsive: true, displaylogo: false};
      var preview = gd.querySelector('.course-plot-preview');
      if (preview) { preview.remove(); }
      return Plotly.newPlot(gd, spec.data, fitToWidth(spec.layout, gd.clientWidth), config);
    }).then(function () {
      gd.dataset.state = 'drawn';
      document.dispatchEvent(new CustomEvent('course:figure-drawn', {detail: {element: gd}}));
    }).catch(function (error) {
      gd.dataset.state = 'failed';
      console.error('course figure ' + gd.id + ': ' + error);
    });
  }

  function start() {
    var figures = document.querySelectorAll('.course-plot');
    if (!('IntersectionObserver' in window)) {
      figures.forEach(draw);
      return;
    }
    var observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (entry.isIntersecting) {
          observer.unobserve(entry.target);
          draw(entry.target);
        }
      });
    }, {rootMargin: '300px 0px'});
    figures.forEach(function (gd) { observer.observe(gd); });
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
})();
