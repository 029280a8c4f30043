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
  var fit = window.courseFigureFit;  // course-figure-fit.js: the layout on a phone
  var NARROW = fit.NARROW;
  var PAPER_WIDTH = 680;  // px: the printed column on A4 at the browser's own margins (686)
  var loading = null;

  // A 3-D view is drawn with WebGL. plotly.js lets the browser drop the drawing once it is on
  // screen (preserveDrawingBuffer false, except on the phones it detects) and has no setting
  // for it (plotly.py #2774), so a reader who had looked at a 3-D view and then printed the
  // page got an empty box on paper. The page's WebGL drawings are kept, as on those phones.
  function keepWebGLDrawings() {
    var getContext = HTMLCanvasElement.prototype.getContext;
    HTMLCanvasElement.prototype.getContext = function (type, attributes) {
      if (/webgl/.test(type)) { attributes = Object.assign({}, attributes, {preserveDrawingBuffer: true}); }
      return getContext.call(this, type, attributes);
    };
  }

  function loadPlotly() {
    if (window.Plotly) { return Promise.resolve(window.Plotly); }
    if (!loading) {
      keepWebGLDrawings();
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

  // A figure's data, in its own file (data-src).
  function specFor(gd) {
    var holder = document.querySelector('script.course-plot-spec[data-for="' + gd.id + '"]');
    return fetch(holder.dataset.src).then(function (response) {
      if (!response.ok) { throw new Error('could not load ' + holder.dataset.src); }
      return response.json();
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

  // After drawing on a phone, once the margins are final: a slider's value that would reach
  // past the figure's side is written from the rail's right end (course-figure-fit.js).
  function fitSliderValues(Plotly, gd) {
    var changes = {}, full = gd._fullLayout;
    (full.sliders || []).forEach(function (slider, index) {
      var dims = slider._dims, value = slider.currentvalue;
      if (!dims || !value || !value.visible || value.xanchor !== 'left') { return; }
      var fitted = fit.sliderValueFit(dims.lx + slider.pad.l, dims.inputAreaLength, dims.currentValueMaxWidth,
                                      full.width, value.font.size, full.font.size);
      if (!fitted) { return; }
      changes['sliders[' + index + '].currentvalue.xanchor'] = fitted.xanchor;
      if (fitted.size !== value.font.size) {
        changes['sliders[' + index + '].currentvalue.font.size'] = fitted.size;
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

  // The control that a name such as 'sliders[0]' names in a layout.
  function namedControl(layout, name) {
    var parts = /^(\w+)\[(\d+)\]$/.exec(name);
    return layout[parts[1]][Number(parts[2])];
  }

  // Every step of every slider and menu: {step, control: 'sliders[0]', index}.
  function controlSteps(layout) {
    var found = [];
    ['sliders', 'updatemenus'].forEach(function (list) {
      (layout[list] || []).forEach(function (control, number) {
        (control.steps || control.buttons || []).forEach(function (step, index) {
          found.push({step: step, control: list + '[' + number + ']', index: index});
        });
      });
    });
    return found;
  }

  // A figure whose controls show one colour-mapped table after another (lesson 5's pipeline)
  // needs other margins at each step: other tick labels, another colour bar. Plotly lays a
  // slider out on the plot area, so a step that changes the margins moves the slider under
  // the reader's pointer, which then reads as another step. Such a figure is first laid out
  // at each step in turn, out of sight, and keeps the widest margins any step takes.
  function marginsChangeWithSteps(spec) {
    var steps = controlSteps(spec.layout).map(function (found) { return found.step; });
    var toggles = steps.some(function (step) { return step.args && step.args[0] && 'visible' in step.args[0]; });
    var colourBars = {};  // the colour bars the steps show in turn, told apart by what they write
    spec.data.forEach(function (trace) {
      if (/heatmap|contour/.test(trace.type || '') && trace.showscale !== false) {
        colourBars[JSON.stringify([trace.colorbar, trace.zmin, trace.zmax, trace.zmid])] = true;
      }
    });
    var relabels = steps.some(function (step) {
      var changes = (step.method === 'update' ? step.args[1] : step.method === 'relayout' ? step.args[0] : null) || {};
      return Object.keys(changes).some(function (key) { return /^[xy]axis\d*\.(ticktext|title)/.test(key); });
    });
    return relabels || (toggles && Object.keys(colourBars).length > 1);
  }

  // Lay the drawn figure out at every step, out of sight, each in a task of its own (so the
  // page keeps answering the reader), then keep the widest margins and go back to the steps
  // it opened with. Later changes to the layout (the page's colours, a step drawn with the
  // wider margins) can move Plotly's margins by a few px more: a margin a step outgrows then
  // stays as wide.
  function keepWidestMargins(Plotly, gd) {
    var steps = controlSteps(gd.layout);
    var opening = steps.filter(function (found) {
      return found.index === (namedControl(gd.layout, found.control).active || 0);
    });
    var widest = {l: 0, r: 0};
    var later = function () { return new Promise(function (resolve) { setTimeout(resolve, 0); }); };
    var take = function (found) {
      return later().then(function () {
        return Plotly[found.step.method].apply(null, [gd].concat(found.step.args));
      }).then(function () {
        widest.l = Math.max(widest.l, Math.ceil(gd._fullLayout._size.l));
        widest.r = Math.max(widest.r, Math.ceil(gd._fullLayout._size.r));
      });
    };
    var widen = function () {
      var size = gd._fullLayout._size, margin = gd.layout.margin;
      if (size.l > margin.l + 0.5 || size.r > margin.r + 0.5) {
        Plotly.relayout(gd, {'margin.l': Math.ceil(Math.max(size.l, margin.l)),
                             'margin.r': Math.ceil(Math.max(size.r, margin.r))});
      }
    };
    gd.style.visibility = 'hidden';
    return steps.concat(opening).reduce(function (done, found) {
      return done.then(function () { return take(found); });
    }, Promise.resolve()).then(function () {
      return Plotly.relayout(gd, {'margin.l': widest.l, 'margin.r': widest.r});
    }).then(function () {
      gd.style.visibility = '';
      gd.on('plotly_afterplot', widen);
    });
  }

  // After each drawing. The toolbar's drag modes (box zoom, pan, box and lasso select) work
  // with a pointer only: as tab stops they put four keys' worth of nothing before every
  // explorer's own control, so they leave the tab order (zoom, autoscale, reset and download
  // stay). The drawing's SVG is hidden from screen readers, which read the figure's name (its
  // caption) and description (what the chart writes: course-explorer-keys.js) instead of some
  // sixty tick labels one by one; so is the off-screen SVG Plotly measures text with.
  //
  // The toolbar says it is one (role="toolbar") but made each of its other buttons a tab stop
  // too: five per chart before the next control. As WAI-ARIA's toolbar pattern has it, the
  // toolbar is now one tab stop, the button last used (the first at the start), and the arrow
  // keys, Home and End move between its buttons (toolbarKeys).
  function toolbarButtons(gd) {
    return [].filter.call(gd.querySelectorAll('.modebar-btn'), function (button) {
      return button.dataset.attr !== 'dragmode';
    });
  }

  function quietPlotlyInternals(gd) {
    gd.querySelectorAll('.modebar-btn[data-attr="dragmode"]').forEach(function (button) {
      if (button.tabIndex !== -1) { button.tabIndex = -1; }
    });
    var buttons = toolbarButtons(gd);
    var current = Math.min(gd.courseToolbarButton || 0, buttons.length - 1);
    buttons.forEach(function (button, index) {
      var stop = index === current ? 0 : -1;
      if (button.tabIndex !== stop) { button.tabIndex = stop; }
    });
    var drawings = [].slice.call(gd.querySelectorAll('svg.main-svg'));
    drawings.concat([document.getElementById('js-plotly-tester')]).forEach(function (svg) {
      if (svg && svg.getAttribute('aria-hidden') !== 'true') { svg.setAttribute('aria-hidden', 'true'); }
    });
  }

  var TOOLBAR_MOVES = {ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1};

  function toolbarKeys(gd) {
    gd.addEventListener('focusin', function (event) {  // a button used, by key or pointer
      var index = toolbarButtons(gd).indexOf(event.target);
      if (index >= 0 && index !== gd.courseToolbarButton) {
        gd.courseToolbarButton = index;
        quietPlotlyInternals(gd);
      }
    });
    gd.addEventListener('keydown', function (event) {
      var buttons = toolbarButtons(gd);
      var index = buttons.indexOf(event.target);
      if (index < 0 || event.altKey || event.ctrlKey || event.metaKey) { return; }
      var next = event.key === 'Home' ? 0 : event.key === 'End' ? buttons.length - 1
        : event.key in TOOLBAR_MOVES ? (index + TOOLBAR_MOVES[event.key] + buttons.length) % buttons.length
        : null;
      if (next === null) { return; }
      event.preventDefault();
      buttons[next].focus();  // focusin makes it the toolbar's tab stop
    });
  }

  var drawing = new WeakMap();  // figure -> the promise of its drawing

  function draw(gd) {
    if (!drawing.has(gd)) { drawing.set(gd, drawOnce(gd)); }
    return drawing.get(gd);
  }

  function drawOnce(gd) {
    gd.dataset.state = 'loading';
    return Promise.all([specFor(gd), loadPlotly()]).then(function (loaded) {
      var spec = loaded[0], Plotly = loaded[1];
      var narrow = gd.clientWidth < NARROW;
      // On a phone the toolbar would take the title's room. Elsewhere it shows while the pointer
      // is over the chart (Plotly's 'hover'), at its top right, above the title (plotting.style
      // pins titles below it), and without plotly.js 4's "Share chart" button, which uploads
      // the chart to Plotly's cloud.
      var config = {responsive: true, displaylogo: false, showSendToCloud: false,
                    displayModeBar: narrow ? false : 'hover'};
      var fitted = fit.fitToWidth(spec, gd.clientWidth);
      // Where the reader points with a finger, a finger drawn across a chart scrolls the page.
      // Plotly's drag zooms into a box instead, so a reader who scrolled with a finger on a
      // chart zoomed it, and a chart taller than the screen (lesson 3's on a phone, 1,434 px)
      // could hardly be scrolled past. A tap still shows a point's values, and the toolbar's
      // zoom and pan (shown on a tablet) turn the drag back on. A 3-D view still turns: its
      // scene would take the chart's setting, so it is given its own.
      if (window.matchMedia('(pointer: coarse)').matches) {
        var layout = Object.assign({}, fitted.layout, {dragmode: false});
        fitted.data.forEach(function (trace) {
          if (!/3d$/.test(trace.type || '')) { return; }
          var scene = trace.scene || 'scene';
          layout[scene] = Object.assign({dragmode: 'turntable'}, layout[scene]);
        });
        fitted.layout = layout;
      }
      var preview = gd.querySelector('.course-plot-preview');
      if (preview) { preview.remove(); }
      gd.style.height = fitted.layout.height + 'px';
      return Plotly.newPlot(gd, fitted.data, fitted.layout, config).then(function () {
        quietPlotlyInternals(gd);
        toolbarKeys(gd);
        gd.on('plotly_afterplot', function () { quietPlotlyInternals(gd); });  // the toolbar is redrawn
        return narrow ? clearSliders(Plotly, gd).then(function () { return clearLegend(Plotly, gd); }) : null;
      }).then(function () {
        return marginsChangeWithSteps(spec) ? keepWidestMargins(Plotly, gd) : null;
      }).then(function () {
        return narrow ? fitSliderValues(Plotly, gd) : null;
      });
    }).then(function () {
      gd.dataset.state = 'drawn';
      document.dispatchEvent(new CustomEvent('course:figure-drawn', {detail: {element: gd}}));
    }).catch(function (error) {
      gd.dataset.state = 'failed';
      gd.style.visibility = '';
      console.error('course figure ' + gd.id + ': ' + error);
    });
  }

  // Before it is drawn, a figure on a phone takes the height it will have once drawn: the
  // build worked it out for every width, and lists where it changes
  // (data-narrow-heights="240:932 280:899 400:866", figure_heights.py); the figure takes the
  // one for the widest width its box reaches (a whole number of px, as clientWidth is).
  function reserveHeight(gd, width) {
    width = Math.round(width);
    if (gd.dataset.state || width >= NARROW || !gd.dataset.narrowHeights) { return; }
    var height = 0;
    gd.dataset.narrowHeights.split(' ').forEach(function (pair, index) {
      var parts = pair.split(':');
      if (index === 0 || Number(parts[0]) <= width) { height = Number(parts[1]); }
    });
    gd.style.height = height + 'px';
  }

  function start() {
    var figures = document.querySelectorAll('.course-plot');
    var observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        reserveHeight(entry.target, entry.boundingClientRect.width);
        if (entry.isIntersecting) {
          observer.unobserve(entry.target);
          draw(entry.target);
        }
      });
    }, {rootMargin: '300px 0px'});
    figures.forEach(function (gd) { observer.observe(gd); });
    function drawAll() {
      return Promise.all([].map.call(figures, function (gd) { observer.unobserve(gd); return draw(gd); }));
    }
    // A reader who moves with the Tab key reaches each explorer's keyboard control only once
    // its figure is drawn: at the first Tab, draw every figure so no control is skipped.
    document.addEventListener('keydown', function onTab(event) {
      if (event.key !== 'Tab') { return; }
      document.removeEventListener('keydown', onTab);
      drawAll();
    });
    // A printed page shows every figure. The theme's "Print to PDF" button calls window.print()
    // at once, when the figures further down are still previews: the print waits until they
    // are drawn and the pictures loaded. A print from the browser's own menu cannot wait; it
    // starts them drawing and loading, so that the next print has them. On paper the column
    // is narrower than on a wide screen, and a figure drawn for the screen was cut at its
    // right edge: each is scaled to fit (course.css applies the scale in print only).
    function fitToPaper() {
      figures.forEach(function (gd) {
        var width = gd.getBoundingClientRect().width;
        gd.style.setProperty('--course-print-zoom', String(Math.min(1, PAPER_WIDTH / width)));
      });
    }
    // A picture (a matplotlib figure) waits to load until the reader scrolls near it
    // (loading="lazy"): one the reader had jumped past was an empty space on paper.
    function loadPictures() {
      return Promise.all([].map.call(document.querySelectorAll('img[loading="lazy"]'), function (img) {
        img.loading = 'eager';
        return img.decode().catch(function () {});  // a picture that fails prints as it shows
      }));
    }
    var print = window.print;
    window.print = function () {
      Promise.all([drawAll(), loadPictures()]).then(function () { fitToPaper(); print.call(window); });
    };
    window.addEventListener('beforeprint', function () { drawAll(); loadPictures(); fitToPaper(); });
  }

  start();  // deferred, as every script of the site: the page is parsed
})();
