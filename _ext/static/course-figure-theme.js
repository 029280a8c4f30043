/* Give every Plotly figure the colours of the page's theme, light or dark.
 *
 * Figures are drawn on a transparent background; their text, axes and grid take the
 * theme's colours (CSS variables of the theme) when each is drawn ('course:figure-drawn')
 * and again whenever the reader switches the theme (html[data-theme] changes).
 * Drop-down menus keep their own light boxes, so their text stays dark in both themes.
 * Heatmap colour scales and trace colours are left as they are. A marker outlined in white
 * (a gap between overlapping points, as on lesson 6's word maps) is outlined in the page's
 * background instead, which in the dark theme is no white ring round each point and legend key.
 * Paper is white: a page printed in the dark theme is printed in the light one.
 */
(function () {
  'use strict';
  var MENU_TEXT = '#1a202c';  // on the menus' own light boxes
  var FALLBACK = {text: '#222832', grid: '#d1d5db', line: '#9ca3af', background: '#ffffff'};
  var PAPER = 'white';  // a marker's outline that stands for the paper behind it

  function themeColours() {
    var style = getComputedStyle(document.documentElement);
    var read = function (name, fallback) {
      return style.getPropertyValue(name).trim() || fallback;
    };
    return {
      text: read('--pst-color-text-base', FALLBACK.text),
      grid: read('--pst-color-border-muted', FALLBACK.grid),
      line: read('--pst-color-border', FALLBACK.line),
      muted: read('--pst-color-text-muted', FALLBACK.line),
      background: read('--pst-color-background', FALLBACK.background),
    };
  }

  // The layout changes that colour one drawn figure for the current theme.
  function themeLayout(gd) {
    var colours = themeColours();
    var layout = gd.layout || {};
    var changes = {
      'paper_bgcolor': 'rgba(0,0,0,0)',
      'plot_bgcolor': 'rgba(0,0,0,0)',
      'font.color': colours.text,
      'modebar.bgcolor': 'rgba(0,0,0,0)',
      'modebar.color': colours.muted,
      'modebar.activecolor': colours.text,
    };
    Object.keys(layout).forEach(function (key) {
      if (/^[xy]axis\d*$/.test(key)) {
        changes[key + '.color'] = colours.text;  // tick labels, axis title, ticks
        changes[key + '.gridcolor'] = colours.grid;
        changes[key + '.zerolinecolor'] = colours.line;
        changes[key + '.linecolor'] = colours.line;
      }
      if (/^scene\d*$/.test(key)) {  // 3-D plots: three axes inside a scene
        ['xaxis', 'yaxis', 'zaxis'].forEach(function (axis) {
          changes[key + '.' + axis + '.color'] = colours.text;
          changes[key + '.' + axis + '.gridcolor'] = colours.grid;
          // the walls behind the points, white in the figure's template: the page shows through
          changes[key + '.' + axis + '.backgroundcolor'] = 'rgba(0,0,0,0)';
        });
      }
    });
    (layout.sliders || []).forEach(function (slider, index) {
      changes['sliders[' + index + '].font.color'] = colours.text;
      changes['sliders[' + index + '].currentvalue.font.color'] = colours.text;
      changes['sliders[' + index + '].tickcolor'] = colours.text;
    });
    (layout.updatemenus || []).forEach(function (menu, index) {
      changes['updatemenus[' + index + '].font.color'] = MENU_TEXT;
      changes['updatemenus[' + index + '].bgcolor'] = '#ffffff';
      changes['updatemenus[' + index + '].bordercolor'] = '#a0aec0';
    });
    return changes;
  }

  // The traces whose markers the figure outlines in white, found when it is first painted.
  function outlined(gd) {
    if (!gd.courseOutlined) {
      gd.courseOutlined = (gd.data || []).map(function (trace, index) {
        var line = trace.marker && trace.marker.line;
        return line && line.color === PAPER ? index : -1;
      }).filter(function (index) { return index >= 0; });
    }
    return gd.courseOutlined;
  }

  function paint(gd) {
    var Plotly = window.Plotly;
    if (!Plotly || !gd.layout) { return Promise.resolve(); }
    var traces = outlined(gd);
    var dark = document.documentElement.dataset.theme === 'dark';
    // Notes, legends and colour bars without a colour of their own follow font.color.
    return Plotly.relayout(gd, themeLayout(gd)).then(function () {
      if (!traces.length) { return null; }
      return Plotly.restyle(gd, {'marker.line.color': dark ? themeColours().background : PAPER}, traces);
    }).then(function () {
      gd.dataset.theme = document.documentElement.dataset.theme || 'light';
    });
  }

  function paintAll() {
    document.querySelectorAll('.js-plotly-plot').forEach(function (gd) { paint(gd); });
  }

  // A browser prints no page background, so a page printed in the dark theme came out as light
  // grey text on white paper, its figures' text and axes too. Printing switches the page to the
  // light theme, and its figures at once, before the browser lays the page out for paper; and
  // back after.
  var themeBeforePrint = null;
  window.addEventListener('beforeprint', function () {
    if (document.documentElement.dataset.theme !== 'dark') { return; }
    themeBeforePrint = 'dark';
    document.documentElement.dataset.theme = 'light';
    paintAll();
  });
  window.addEventListener('afterprint', function () {
    if (themeBeforePrint === null) { return; }
    document.documentElement.dataset.theme = themeBeforePrint;
    themeBeforePrint = null;
  });

  document.addEventListener('course:figure-drawn', function (event) { paint(event.detail.element); });
  new MutationObserver(paintAll).observe(document.documentElement,
                                         {attributes: true, attributeFilter: ['data-theme']});
  paintAll();  // a figure drawn before this script ran
})();
