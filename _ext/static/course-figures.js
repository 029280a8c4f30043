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

  // A figure's data: in its own file (data-src) on the site, or inline.
  function specFor(gd) {
    var holder = document.querySelector('script.course-plot-spec[data-for="' + gd.id + '"]');
    if (holder.dataset.src) {
      return fetch(holder.dataset.src).then(function (response) {
        if (!response.ok) { throw new Error('could not load ' + holder.dataset.src); }
        return response.json();
      });
    }
    return Promise.resolve(JSON.parse(holder.textContent));
  }

  // ---- On a phone (narrower than NARROW): a layout that fits, set before drawing. ----

  var CHAR_WIDTH = 0.6;  // of the font size: the width of an average character

  // Break text at spaces (keeping its own <br>) into lines of at most maxChars characters.
  function wrap(text, maxChars) {
    return String(text).split(/<br\s*\/?>/i).map(function (line) {
      var lines = [], current = '';
      line.split(' ').forEach(function (word) {
        var longer = current ? current + ' ' + word : word;
        if (current && longer.replace(/<[^>]+>/g, '').length > maxChars) {
          lines.push(current);
          current = word;
        } else {
          current = longer;
        }
      });
      lines.push(current);
      return lines.join('<br>');
    }).join('<br>');
  }

  function lineCount(text) { return String(text).split(/<br\s*\/?>/i).length; }

  // The subplots: each x axis with the y axis it is anchored to, and their domains.
  function subplots(layout) {
    var found = [];
    Object.keys(layout).forEach(function (key) {
      var match = /^xaxis(\d*)$/.exec(key);
      if (!match) { return; }
      var yKey = 'yaxis' + String(layout[key].anchor || 'y').slice(1);
      var x = layout[key], y = layout[yKey];
      if (!x.domain || !y || !y.domain) { return; }
      found.push({xKey: key, yKey: yKey, x: x.domain.slice(), y: y.domain.slice(),
                  xRef: 'x' + match[1], yRef: 'y' + yKey.slice(5)});
    });
    return found;
  }

  function sideBySide(panels) {
    return panels.some(function (a) {
      return panels.some(function (b) {
        return a !== b && a.x[1] <= b.x[0] + 1e-6 && a.y[0] < b.y[1] && b.y[0] < a.y[1];
      });
    });
  }

  // Put side-by-side subplots one under the other, with their titles and colour bars.
  function stack(spec, layout, panels, plotHeight, margin) {
    var GAP = 112;  // px between panels: the panel's tick labels and the next one's title
    panels.sort(function (a, b) { return (b.y[1] - a.y[1]) || (a.x[0] - b.x[0]); });
    panels.forEach(function (panel) {
      panel.px = Math.max(170, Math.min(300, Math.round((panel.y[1] - panel.y[0]) * plotHeight)));
    });
    var newPlot = panels.reduce(function (sum, panel) { return sum + panel.px; }, 0) + GAP * (panels.length - 1);
    var offset = 0;
    panels.forEach(function (panel) {
      panel.top = 1 - offset / newPlot;
      panel.bottom = panel.top - panel.px / newPlot;
      offset += panel.px + GAP;
      layout[panel.xKey] = Object.assign({}, layout[panel.xKey], {domain: [0, 1]});
      layout[panel.yKey] = Object.assign({}, layout[panel.yKey], {domain: [panel.bottom, panel.top]});
    });
    (layout.annotations || []).forEach(function (note, index) {
      if (note.xref !== 'paper' || note.yref !== 'paper') { return; }
      var panel = panels.find(function (p) {
        return note.x >= p.x[0] - 0.01 && note.x <= p.x[1] + 0.01 && Math.abs(note.y - p.y[1]) < 0.08;
      });
      if (!panel) { return; }
      layout.annotations[index] = Object.assign({}, note, {
        x: (note.x - panel.x[0]) / (panel.x[1] - panel.x[0]), y: panel.top, yanchor: 'bottom'});
    });
    spec.data.forEach(function (trace) {
      var panel = panels.find(function (p) {
        return (trace.xaxis || 'x') === p.xRef && (trace.yaxis || 'y') === p.yRef;
      });
      if (!panel || !/heatmap|contour/.test(trace.type || '')) { return; }
      trace.colorbar = Object.assign({}, trace.colorbar || {}, {
        y: (panel.top + panel.bottom) / 2, yanchor: 'middle', len: panel.top - panel.bottom,
        lenmode: 'fraction', thickness: 10});
    });
    return newPlot + margin.t + margin.b;
  }

  // Controls and notes above the plot (paper y > 1): their height above it in px.
  function aboveThePlot(layout, plotHeight) {
    var items = [];
    (layout.updatemenus || []).forEach(function (menu, index) {
      if ((menu.yref || 'paper') === 'paper' && menu.y > 1) {
        items.push({list: 'updatemenus', index: index, px: (menu.y - 1) * plotHeight});
      }
    });
    (layout.annotations || []).forEach(function (note, index) {
      if (note.xref === 'paper' && note.yref === 'paper' && note.y > 1.02) {
        items.push({list: 'annotations', index: index, px: (note.y - 1) * plotHeight});
      }
    });
    return items;
  }

  // A row of three or more menus that does not fit: wrap it into rows, each menu keeping
  // the note above it. Returns the height added above the plot (px).
  function wrapMenus(layout, items, plotWidth) {
    var menus = items.filter(function (item) { return item.list === 'updatemenus'; });
    if (menus.length < 3) { return 0; }
    var longest = 0;
    menus.forEach(function (item) {
      (layout.updatemenus[item.index].buttons || []).forEach(function (button) {
        longest = Math.max(longest, String(button.label || '').length);
      });
    });
    var perRow = Math.max(1, Math.floor(plotWidth / (longest * 11 * CHAR_WIDTH + 56)));
    if (perRow >= menus.length) { return 0; }
    var rows = Math.ceil(menus.length / perRow), ROW = 85;
    menus.forEach(function (item, order) {
      var menu = layout.updatemenus[item.index];
      var column = order % perRow, row = Math.floor(order / perRow);
      var newX = column / perRow, lift = (rows - 1 - row) * ROW;
      items.forEach(function (other) {
        var thing = layout[other.list][other.index];
        if (other === item || (other.list === 'annotations' && Math.abs(thing.x - menu.x) < 1e-6)) {
          other.px += lift;
          other.x = newX;
        }
      });
    });
    return (rows - 1) * ROW;
  }

  function fitToWidth(spec, width) {
    var layout = Object.assign({}, spec.layout);
    if (width >= NARROW) { return layout; }
    var fontSize = 11;
    var margin = Object.assign({l: 80, r: 80, t: 100, b: 80}, layout.margin || {});
    margin = Object.assign(margin, {l: Math.min(margin.l, 50), r: Math.min(margin.r, 20)});
    var plotWidth = width - margin.l - margin.r;
    var height = layout.height || 450;
    var plotHeight = height - margin.t - margin.b;
    layout.font = Object.assign({}, layout.font || {}, {size: fontSize});
    ['updatemenus', 'annotations', 'sliders'].forEach(function (list) {
      if (layout[list]) {
        layout[list] = layout[list].map(function (item) { return Object.assign({}, item); });
      }
    });
    var above = aboveThePlot(layout, plotHeight);
    var extraTop = wrapMenus(layout, above, plotWidth);
    var panels = subplots(layout);
    if (panels.length > 1 && sideBySide(panels)) {
      height = stack(spec, layout, panels, plotHeight, margin);
      plotHeight = height - margin.t - margin.b;
    }
    // What sits above the plot keeps its distance in px, however tall the plot became.
    var highest = 0;
    above.forEach(function (item) {
      var thing = layout[item.list][item.index];
      thing.y = 1 + item.px / plotHeight;
      if (item.x !== undefined) { thing.x = item.x; }
      highest = Math.max(highest, item.px + (item.list === 'annotations' ? 18 : 34));
    });
    Object.keys(layout).forEach(function (key) {
      if (/^xaxis\d*$/.test(key) && layout[key].side === 'top') {
        highest = Math.max(highest, 26);  // tick labels above the plot
      }
    });
    if (layout.legend && layout.legend.orientation === 'h' && (layout.legend.y || 0) >= 1) {
      highest = Math.max(highest, 28);
    }
    if ((layout.annotations || []).some(function (note) {
      return note.yref === 'paper' && Math.abs(note.y - 1) < 0.02;
    })) {
      highest = Math.max(highest, 26);  // a subplot title on the plot's top edge
    }
    // The title: wrapped to the width, above everything else.
    var titleChars = Math.floor((width - 20) / (13 * CHAR_WIDTH));
    var titleLines = 0;
    var fitTitle = function (text) {
      var wrapped = wrap(text, titleChars);
      titleLines = Math.max(titleLines, lineCount(wrapped));
      return wrapped;
    };
    var title = typeof layout.title === 'string' ? {text: layout.title} : Object.assign({}, layout.title || {});
    if (title.text) {
      title.text = fitTitle(title.text);
    }
    (layout.sliders || []).concat(layout.updatemenus || []).forEach(function (control) {
      (control.steps || control.buttons || []).forEach(function (step) {
        (step.args || []).forEach(function (change) {
          if (change && typeof change === 'object' && typeof change['title.text'] === 'string') {
            change['title.text'] = fitTitle(change['title.text']);
          }
        });
      });
    });
    if (titleLines) {
      layout.title = Object.assign(title, {
        font: Object.assign({}, title.font || {}, {size: 13}),
        x: 0, xref: 'container', xanchor: 'left', y: 1, yref: 'paper', yanchor: 'bottom',
        pad: {t: 0, b: highest + 12 + 16 * (titleLines - 1), l: 8}});
    }
    var needed = highest + 12 + 33 * titleLines + 10;
    extraTop += Math.max(0, needed - margin.t - extraTop);
    margin.t += extraTop;
    height += extraTop;
    Object.keys(layout).forEach(function (key) {
      if (/^xaxis\d*$/.test(key)) {
        layout[key] = Object.assign({automargin: true}, layout[key]);
      }
    });
    var noteChars = Math.floor(plotWidth / (fontSize * CHAR_WIDTH));
    layout.annotations = (layout.annotations || []).map(function (note) {
      return note.text ? Object.assign({}, note, {text: wrap(note.text, noteChars)}) : note;
    });
    uprightCategories(spec, layout, plotWidth, fontSize);
    // A colour bar's title beside the bar, not on top of its highest tick label.
    spec.data.forEach(function (trace) {
      if (trace.colorbar && trace.colorbar.title && trace.colorbar.title.text) {
        trace.colorbar = Object.assign({}, trace.colorbar, {
          title: Object.assign({}, trace.colorbar.title, {side: 'right'})});
      }
    });
    layout.margin = margin;
    layout.height = Math.round(height);
    return layout;
  }

  // Category tick labels too long to stand side by side are turned upright.
  function uprightCategories(spec, layout, plotWidth, fontSize) {
    var labels = {};
    spec.data.forEach(function (trace) {
      if (!Array.isArray(trace.x) || typeof trace.x[0] !== 'string') { return; }
      var key = 'xaxis' + String(trace.xaxis || 'x').slice(1);
      labels[key] = (labels[key] || []).concat(trace.x);
    });
    Object.keys(labels).forEach(function (key) {
      var unique = labels[key].filter(function (v, i, all) { return all.indexOf(v) === i; });
      var longest = Math.max.apply(null, unique.map(function (v) { return v.length; }));
      if (longest * fontSize * CHAR_WIDTH > plotWidth / unique.length) {
        layout[key] = Object.assign({}, layout[key], {tickangle: -90});
      }
    });
  }

  // After drawing on a phone: move a slider down when the tick labels above it reach it.
  function clearSliders(Plotly, gd) {
    var sliders = gd.querySelectorAll('.slider-container');
    var labels = gd.querySelectorAll('.xaxislayer-above text, .g-xtitle text');
    if (!sliders.length || !labels.length) { return Promise.resolve(); }
    var lowest = Math.max.apply(null, [].map.call(labels, function (el) {
      return el.getBoundingClientRect().bottom;
    }));
    var changes = {};
    [].forEach.call(sliders, function (slider, index) {
      var top = slider.getBoundingClientRect().top;
      if (top < lowest + 4 && gd.layout.sliders && gd.layout.sliders[index]) {
        var pad = (gd.layout.sliders[index].pad || {}).t || 0;
        changes['sliders[' + index + '].pad.t'] = pad + Math.ceil(lowest + 8 - top);
      }
    });
    return Object.keys(changes).length ? Plotly.relayout(gd, changes) : Promise.resolve();
  }

  // After drawing on a phone: a legend that wrapped onto several lines may reach the title
  // (legend above the plot) or the x-axis labels (legend below it); make room for it.
  function clearLegend(Plotly, gd) {
    var legend = gd.querySelector('.legend');
    if (!legend || !gd.layout.legend) { return Promise.resolve(); }
    var box = legend.getBoundingClientRect();
    var full = gd._fullLayout;
    var height = full.height;
    var title = gd.querySelector('.g-gtitle text');
    if ((gd.layout.legend.y || 0) >= 1 && title) {
      var overlap = title.getBoundingClientRect().bottom + 4 - box.top;
      if (overlap > 0) {
        var pad = (full.title && full.title.pad && full.title.pad.b) || 0;
        gd.style.height = (height + overlap) + 'px';
        return Plotly.relayout(gd, {'title.pad.b': pad + overlap, 'margin.t': full.margin.t + overlap,
                                    height: height + overlap});
      }
      return Promise.resolve();
    }
    var labels = gd.querySelectorAll('.xaxislayer-above text, .g-xtitle text');
    if ((gd.layout.legend.y || 0) < 0 && labels.length) {
      var lowest = Math.max.apply(null, [].map.call(labels, function (el) {
        return el.getBoundingClientRect().bottom;
      }));
      var below = lowest + 6 - box.top;
      if (below > 0) {
        var plotHeight = full._size.h;
        gd.style.height = (height + below) + 'px';
        return Plotly.relayout(gd, {'legend.y': gd.layout.legend.y - below / plotHeight,
                                    'margin.b': full.margin.b + below, height: height + below});
      }
    }
    return Promise.resolve();
  }

  function draw(gd) {
    if (gd.dataset.state) { return; }
    gd.dataset.state = 'loading';
    Promise.all([specFor(gd), loadPlotly()]).then(function (loaded) {
      var spec = loaded[0], Plotly = loaded[1];
      var narrow = gd.clientWidth < NARROW;
      // On a phone the toolbar would cover the title; pinch and drag still zoom and pan.
      var config = {responsive: true, displaylogo: false, displayModeBar: !narrow};
      var layout = fitToWidth(spec, gd.clientWidth);
      var preview = gd.querySelector('.course-plot-preview');
      if (preview) { preview.remove(); }
      gd.style.height = layout.height + 'px';
      return Plotly.newPlot(gd, spec.data, layout, config).then(function () {
        return narrow ? clearSliders(Plotly, gd).then(function () { return clearLegend(Plotly, gd); }) : null;
      });
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
    // A reader who moves with the Tab key reaches each explorer's keyboard control only once
    // its figure is drawn: at the first Tab, draw every figure so no control is skipped.
    document.addEventListener('keydown', function onTab(event) {
      if (event.key !== 'Tab') { return; }
      document.removeEventListener('keydown', onTab);
      figures.forEach(function (gd) { observer.unobserve(gd); draw(gd); });
    });
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
})();
