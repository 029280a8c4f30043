/* The layout of a Plotly figure on a phone: worked out from the figure's own layout.
 *
 * Below NARROW px of width, side-by-side panels are stacked, the title and notes are wrapped,
 * and the controls above the plot keep their distance in px. The site's figure loader
 * (course-figures.js) uses it before drawing a figure; the build (tools/figure_heights.js)
 * uses it to give each figure, before it is drawn, the height it will have on a phone.
 */
(function (exports) {
  'use strict';
  var NARROW = 600;  // px: below this width the layout is adjusted for a phone
  var CHAR_WIDTH = 0.6;  // of the font size: the width of an average character
  var TICK_ROOM = 16;  // px beside a y axis's tick labels: its tick, the gaps (Plotly's automargin)
  var SCENE_ASPECT = 1.4;  // width to height of a 3-D view's box on a wide screen (672 x 480 px)
  var SCENE_TICKS = 4;  // at most, on each axis of a 3-D view on a phone
  var PANEL_TITLE = 13;  // px at most: a stacked panel's title, as large as the figure's own

  function plain(text) { return String(text).replace(/<[^>]+>/g, ''); }

  // Break text at spaces (keeping its own <br>) into lines of at most `limit` characters, or
  // of at most `limit` px when given how wide a line is (`measure`).
  function wrap(text, limit, measure) {
    measure = measure || function (line) { return plain(line).length; };
    return String(text).split(/<br\s*\/?>/i).map(function (line) {
      var lines = [], current = '';
      line.split(' ').forEach(function (word) {
        var longer = current ? current + ' ' + word : word;
        if (current && measure(longer) > limit) {
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

  // The width of `text` in px: measured in the browser's own font, estimated elsewhere (the
  // build's heights do not depend on it).
  var canvas = null;
  function textWidth(text, fontSize, family) {
    if (typeof document === 'undefined') { return text.length * fontSize * CHAR_WIDTH; }
    canvas = canvas || document.createElement('canvas').getContext('2d');
    canvas.font = fontSize + 'px ' + (family || 'sans-serif');
    return canvas.measureText(text).width;
  }

  // The widest category name (px) that the traces of `panel` can show on its y axis, when a
  // step of the figure's menus or sliders restyles their `y` with new names; 0 when none does
  // (Plotly's automargin fits names that do not change).
  function changingNames(data, layout, panel, fontSize) {
    var family = (layout.font || {}).family, widest = 0, changed = false;
    var onPanel = function (index) {
      var trace = data[index] || {};
      return (trace.xaxis || 'x') === panel.xRef && (trace.yaxis || 'y') === panel.yRef;
    };
    var measure = function (values) {
      (Array.isArray(values) ? values : []).forEach(function (value) {
        if (typeof value === 'string') { widest = Math.max(widest, textWidth(value, fontSize, family)); }
      });
    };
    (layout.sliders || []).concat(layout.updatemenus || []).forEach(function (control) {
      (control.steps || control.buttons || []).forEach(function (step) {
        var args = step.args || [], change = args[0];
        if (!change || !Array.isArray(change.y)) { return; }
        // restyle(changes, traces), update(changes, layout changes, traces); no traces: all
        var traces = (step.method === 'update' ? args[2] : args[1]);
        traces = traces === undefined ? data.map(function (trace, index) { return index; }) : [].concat(traces);
        traces.forEach(function (index, k) {
          if (onPanel(index)) { changed = true; measure(change.y[k]); }
        });
      });
    });
    if (!changed) { return 0; }
    data.forEach(function (trace, index) { if (onPanel(index)) { measure(trace.y); } });
    return widest;
  }

  // Put side-by-side subplots one under the other, with their titles and colour bars.
  // Stacked, they share the left margin. A panel whose names change with the controls keeps
  // the room for its widest name inside its own width, so that the margin, and with it the
  // width of every panel, stays the same as a reader moves the controls.
  function stack(data, layout, panels, plotHeight, margin, plotWidth, fontSize) {
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
      var names = changingNames(data, layout, panel, fontSize);
      panel.left = Math.min(0.5, Math.max(0, Math.ceil(names) + TICK_ROOM - margin.l) / plotWidth);
      layout[panel.xKey] = Object.assign({}, layout[panel.xKey], {domain: [panel.left, 1]});
      layout[panel.yKey] = Object.assign({}, layout[panel.yKey], {domain: [panel.bottom, panel.top]});
    });
    (layout.annotations || []).forEach(function (note, index) {
      if (note.xref !== 'paper' || note.yref !== 'paper') { return; }
      var panel = panels.find(function (p) {
        return note.x >= p.x[0] - 0.01 && note.x <= p.x[1] + 0.01 && Math.abs(note.y - p.y[1]) < 0.08;
      });
      if (!panel) { return; }
      // Plotly's 16 px for a panel's title outranked the figure's title (lesson 1 at 320 px)
      var size = Math.min((note.font && note.font.size) || 16, PANEL_TITLE);
      layout.annotations[index] = Object.assign({}, note, {
        x: panel.left + (1 - panel.left) * (note.x - panel.x[0]) / (panel.x[1] - panel.x[0]),
        y: panel.top, yanchor: 'bottom', font: Object.assign({}, note.font || {}, {size: size})});
    });
    data.forEach(function (trace) {
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

  // The figure's traces and layout at a width of `width` px: {data: [...], layout: {...}}.
  // The spec itself is left as it is: what changes is copied.
  function fitToWidth(spec, width) {
    var layout = Object.assign({}, spec.layout);
    if (width >= NARROW) { return {data: spec.data, layout: layout}; }
    var data = spec.data.map(function (trace) { return Object.assign({}, trace); });
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
    var legendBelow = layout.legend && layout.legend.orientation === 'h' && (layout.legend.y || 0) < 0
      ? -layout.legend.y * plotHeight : null;  // px below the plot, as the figure placed it
    if (panels.length > 1 && sideBySide(panels)) {
      height = stack(data, layout, panels, plotHeight, margin, plotWidth, fontSize);
      plotHeight = height - margin.t - margin.b;
    }
    if (layout.scene) {
      // plotly.js fits a 3-D view to the height of its box and writes its axes' text at a fixed
      // size: in a box taller than wide (lesson 6's, 342 x 480 px at 390) the view was cut at
      // both sides, axis titles and all. On a phone the box has the wide screen's shape, a
      // little higher (its height rounded up to a step of 40 px: the build lists each height
      // it takes; rounded down, a turned view's lowest axis title fell out of the box at
      // 320 px), and the camera steps back until the view is as wide, for the box's height, as
      // on a wide screen. A square box drew the same view with 40 px more empty above and below.
      var sceneHeight = Math.min(plotHeight, 40 * Math.ceil(plotWidth / SCENE_ASPECT / 40));
      height += sceneHeight - plotHeight;
      plotHeight = sceneHeight;
      var back = SCENE_ASPECT * sceneHeight / plotWidth;
      var stepBack = function (eye) { return {x: eye.x * back, y: eye.y * back, z: eye.z * back}; };
      // Its markers keep their size in px, so on the smaller view they ran into each other
      // (lesson 6's 48 words at 390 px): they shrink with its width (a square root: to 0.7 at 390 px).
      var shrink = Math.max(0.6, Math.sqrt(plotWidth / (SCENE_ASPECT * 480)));
      data.forEach(function (trace) {  // each a copy already
        if (trace.type === 'scatter3d' && trace.marker && typeof trace.marker.size === 'number') {
          trace.marker = Object.assign({}, trace.marker, {size: trace.marker.size * shrink});
        }
      });
      Object.keys(layout).forEach(function (key) {
        if (!/^scene\d*$/.test(key)) { return; }
        var camera = Object.assign({}, layout[key].camera);
        camera.eye = stepBack(camera.eye || {x: 1.25, y: 1.25, z: 1.25});  // plotly.js's own
        layout[key] = Object.assign({}, layout[key], {camera: camera});
        // Seven tick labels an axis, at a fixed size, ran into each other on the smaller view.
        ['xaxis', 'yaxis', 'zaxis'].forEach(function (axis) {
          layout[key][axis] = Object.assign({nticks: SCENE_TICKS}, layout[key][axis]);
        });
        // A slider that turns the view (plotting.turn_slider) moves the eye as far back.
        var name = key + '.camera.eye';
        (layout.sliders || []).forEach(function (slider) {
          slider.steps = (slider.steps || []).map(function (step) {
            var change = step.method === 'relayout' && step.args && step.args[0];
            if (!change || !change[name]) { return step; }
            var moved = Object.assign({}, change);
            moved[name] = stepBack(change[name]);
            return Object.assign({}, step, {args: [moved].concat(step.args.slice(1))});
          });
        });
      });
    }
    if (legendBelow !== null) {
      // A legend in a row below the plot wraps into more rows on a phone (lesson 6's eighteen
      // groups: seven at 390 px, ten at 320), and Plotly takes the room they need from the
      // plot, which then is not the size planned here. They get room of their own below the
      // plot, at the distance the figure gave them, rows packed without a gap between groups.
      var legendHeight = LEGEND_ROW * legendRows(data, plotWidth, fontSize) + 4;
      layout.legend = Object.assign({}, layout.legend, {
        y: -legendBelow / plotHeight, yanchor: 'top', tracegroupgap: 0});
      var room = Math.max(0, Math.ceil(legendBelow + legendHeight) - margin.b);
      margin.b += room;
      height += room;
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
      // A legend standing on the plot (yanchor bottom) grows upwards as it wraps into rows.
      // Its distance from the plot is a share of the plot's height (y = 1.02: 2 %).
      var rows = layout.legend.yanchor === 'bottom' ? legendRows(data, plotWidth, fontSize) : 1;
      var gap = Math.max(0, (layout.legend.y || 1) - 1) * plotHeight;
      highest = Math.max(highest, gap + 4 + LEGEND_ROW * rows);
    }
    if ((layout.annotations || []).some(function (note) {
      return note.yref === 'paper' && Math.abs(note.y - 1) < 0.02;
    })) {
      highest = Math.max(highest, 26);  // a subplot title on the plot's top edge
    }
    // A colour bar beside the plot, with its labels, takes a quarter of a phone's width from it
    // (lesson 5's pipeline: a plot 80 px wide at 320), and in stacked panels it covered the
    // words written right of the first (lesson 3's "← pos 0, 3" at 320 px). The bar goes above
    // the plot, across its width, its tick labels under it and its title on it: where one panel
    // holds the bars (one per state of a slider), not where each panel has its own.
    var bars = layout.scene ? [] : data.filter(function (trace) {
      return /heatmap|contour/.test(trace.type || '') && trace.showscale !== false;
    });
    if (new Set(bars.map(function (trace) { return (trace.xaxis || 'x') + (trace.yaxis || 'y'); })).size > 1) {
      bars = [];
    }
    if (bars.length) {
      var BAR_LABELS = 22, BAR = 10, BAR_TITLE = 18, GAP = 8;  // px: tick labels, bar, title, gap
      var barBottom = highest + BAR_LABELS;
      bars.forEach(function (trace) {
        var bar = trace.colorbar || {};
        var barTitle = typeof bar.title === 'string' ? {text: bar.title} : bar.title || {};
        trace.colorbar = Object.assign({}, bar, {
          orientation: 'h', x: 0.5, xanchor: 'center', len: 1, lenmode: 'fraction',
          thickness: BAR, thicknessmode: 'pixels', y: 1 + barBottom / plotHeight, yanchor: 'bottom',
          ypad: 0, title: Object.assign({}, barTitle, {side: 'top'})});
      });
      highest = barBottom + BAR + GAP + (bars.some(function (trace) {
        return trace.colorbar.title && trace.colorbar.title.text;
      }) ? BAR_TITLE : 0);
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
    // A slider step or a menu button that changes the title: its new title is wrapped too.
    (layout.sliders || []).concat(layout.updatemenus || []).forEach(function (control) {
      var key = control.steps ? 'steps' : 'buttons';
      if (!control[key]) { return; }
      control[key] = control[key].map(function (step) {
        if (!step.args) { return step; }
        return Object.assign({}, step, {args: step.args.map(function (change) {
          if (!change || typeof change !== 'object' || typeof change['title.text'] !== 'string') {
            return change;
          }
          var fitted = Object.assign({}, change);
          fitted['title.text'] = fitTitle(change['title.text']);
          return fitted;
        })});
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
    keepInside(layout, width, margin, plotWidth, fontSize);
    uprightCategories(data, layout, plotWidth, fontSize);
    // A colour bar's title beside the bar, not on top of its highest tick label.
    data.forEach(function (trace) {
      if (trace.colorbar && trace.colorbar.orientation !== 'h' && trace.colorbar.title &&
          trace.colorbar.title.text) {
        trace.colorbar = Object.assign({}, trace.colorbar, {
          title: Object.assign({}, trace.colorbar.title, {side: 'right'})});
      }
    });
    layout.margin = margin;
    layout.height = Math.round(height);
    return {data: data, layout: layout};
  }

  // Text that would reach past the figure's sides on a small phone (at 360 px lesson 1's
  // "most similar vectors (top 8)", at 320 px axis titles and a slider's value too): a note
  // or subplot title moves in, and breaks into lines when wider than the figure; an axis
  // title, centred on its axis, and a slider's value are written smaller, down to the
  // figure's own size, and an axis title still too wide breaks into lines.
  var EDGE = 6;  // px kept clear at each side
  function keepInside(layout, width, margin, plotWidth, fontSize) {
    var family = (layout.font || {}).family;
    var measurer = function (size) {
      return function (text) { return textWidth(plain(text), size, family); };
    };
    var widest = function (text, measure) {
      return Math.max.apply(null, String(text).split(/<br\s*\/?>/i).map(measure));
    };
    var px = function (x) { return margin.l + x * plotWidth; };  // paper x: 0 and 1 are the plot's sides
    layout.annotations = layout.annotations.map(function (note) {
      if (!note.text || note.xref !== 'paper' || note.showarrow !== false) { return note; }
      var measure = measurer((note.font && note.font.size) || fontSize);
      var text = widest(note.text, measure) > width - 2 * EDGE ? wrap(note.text, width - 2 * EDGE, measure) : note.text;
      var textWide = widest(text, measure), x = px(note.x);
      // Plotly's 'auto' anchor for a note on the paper without an arrow: its nearest side
      var anchor = note.xanchor && note.xanchor !== 'auto' ? note.xanchor
        : note.x <= 1 / 3 ? 'left' : note.x >= 2 / 3 ? 'right' : 'center';
      var left = anchor === 'left' ? x : anchor === 'right' ? x - textWide : x - textWide / 2;
      var shift = Math.max(0, EDGE - left) - Math.max(0, left + textWide - (width - EDGE));
      return shift || text !== note.text ? Object.assign({}, note, {text: text, x: note.x + shift / plotWidth}) : note;
    });
    Object.keys(layout).forEach(function (key) {
      var axis = layout[key], title = axis && axis.title;
      var text = typeof title === 'string' ? title : title && title.text;
      if (!/^xaxis\d*$/.test(key) || !text) { return; }
      // Plotly writes an axis title 1.2 times the figure's font size unless told otherwise
      var font = (typeof title === 'object' && title.font) || {};
      var size = font.size || Math.round(1.2 * fontSize);
      var domain = axis.domain || [0, 1], centre = px((domain[0] + domain[1]) / 2);
      var room = 2 * Math.min(centre - EDGE, width - EDGE - centre);
      var wide = widest(text, measurer(size));
      if (wide <= room) { return; }
      // smaller first: a title in two lines would take room from what lies below the axis
      var smaller = Math.max(fontSize, Math.floor(size * room / wide));
      var measure = measurer(smaller);
      layout[key] = Object.assign({}, axis, {title: Object.assign(
        typeof title === 'string' ? {} : Object.assign({}, title), {
          text: widest(text, measure) > room ? wrap(text, room, measure) : text,
          font: Object.assign({}, font, {size: smaller})})});
    });
    (layout.sliders || []).forEach(function (slider, index) {
      var current = slider.currentvalue || {}, size = (current.font && current.font.size) || fontSize;
      if (current.visible === false || size <= fontSize) { return; }
      var longest = Math.max.apply(null, (slider.steps || []).map(function (step) {
        var value = step.label !== undefined ? step.label : (step.value !== undefined ? step.value : '');
        return measurer(size)((current.prefix || '') + value + (current.suffix || ''));
      }));
      var room = width - EDGE - px(slider.x || 0);
      if (longest <= room) { return; }
      layout.sliders[index] = Object.assign({}, slider, {currentvalue: Object.assign({}, current, {
        font: Object.assign({}, current.font, {size: Math.max(fontSize, Math.floor(size * room / longest))})})});
    });
  }

  // A legend laid out in a row wraps into more rows on a phone: how many, at most (each entry
  // is its symbol and gaps, LEGEND_ENTRY px, and its text). A row is LEGEND_ROW px: 20 for a
  // line's entry, 22-23 for a marker's (lesson 6's word maps).
  var LEGEND_ENTRY = 46, LEGEND_ROW = 24;
  function legendRows(data, plotWidth, fontSize) {
    var rows = 1, used = 0;
    data.forEach(function (trace) {
      if (trace.showlegend === false || trace.visible === false || !trace.name) { return; }
      var entry = LEGEND_ENTRY + String(trace.name).length * fontSize * CHAR_WIDTH;
      if (used && used + entry > plotWidth) { rows += 1; used = 0; }
      used += entry;
    });
    return rows;
  }

  // Category tick labels too long to stand side by side are turned upright.
  function uprightCategories(data, layout, plotWidth, fontSize) {
    var labels = {};
    data.forEach(function (trace) {
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

  // Once drawn, a slider's value starts at its rail's left end (`start`, px in the figure), which
  // the axes' labels place. Where its widest step (`widest` px at `size` px) would reach past
  // the figure's right side, it is written from the rail's right end leftwards, as Plotly's
  // xanchor 'right' does, and smaller, down to the figure's own font size, if even that does
  // not fit: {xanchor, size}, or null when it fits as it is (course-figures.js applies it).
  function sliderValueFit(start, railLength, widest, width, size, smallest) {
    if (start + widest <= width - EDGE) { return null; }
    var end = start + railLength;  // the rail's right end
    var fitted = end - widest >= EDGE ? size : Math.max(smallest, Math.floor(size * (end - EDGE) / widest));
    return {xanchor: 'right', size: fitted};
  }

  exports.NARROW = NARROW;
  exports.fitToWidth = fitToWidth;
  exports.sliderValueFit = sliderValueFit;
})(typeof module === 'object' && module.exports ? module.exports : (window.courseFigureFit = {}));
