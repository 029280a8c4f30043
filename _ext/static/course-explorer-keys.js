/* Keyboard controls for the course's Plotly explorers.
 *
 * Plotly's own sliders and menus are drawn in SVG: they take no focus and no keys. For every
 * figure with a slider (or a menu) this script adds a standard HTML control beside it, an
 * <input type="range"> (or a <select>) with a visible label. Arrow keys move one step, Home
 * and End jump to the first and last; the figure is switched to that precomputed state with
 * the step's own Plotly command, and a live region says where the control now is, e.g.
 * "position: 17 (step 18 of 50)", and then the chart's title where the step rewrote it (the
 * figure's takeaway, which a reader would otherwise have to go and find). Plotly's slider
 * stays for the mouse and touch; both controls follow each other, and the HTML one shows only
 * while it has the focus (course-explorer-keys.css). Then it stands in for Plotly's own: Plotly's slider and menus
 * are hidden, and the HTML controls lie where Plotly's slider (the band at the foot of the
 * chart) or lone dropdown was. A reader sees one control, in one place.
 *
 * It also names each figure for assistive technology: the figure's caption (a <figcaption>
 * around it) becomes its accessible name, and what the chart writes (title, notes, axes, colour
 * scales, legend, point labels) its description.
 *
 * Figures may be drawn late (lazily, when scrolled near): a loader announces each drawn figure
 * with the document event 'course:figure-drawn' ({detail: {element: gd}}). Figures already
 * drawn when this script runs are picked up too. Nothing here assumes window.Plotly at load.
 */
(function () {
  'use strict';

  var DONE = 'courseKeys';
  var counter = 0;

  function nextId(prefix) {
    counter += 1;
    return 'course-' + prefix + '-' + counter;
  }

  // A Plotly title or label as words: its line breaks (<br>) become spaces, its no-break
  // spaces stay (a number keeps its unit).
  function plainText(text) {
    var box = document.createElement('div');
    box.innerHTML = String(text || '');
    box.querySelectorAll('br').forEach(function (br) { br.replaceWith(' '); });
    return squeezed(box.textContent || '');
  }

  function squeezed(text) { return text.replace(/[ \t\r\n]+/g, ' ').trim(); }

  // What a slider is called: its name, else the text Plotly writes before its value.
  function sliderLabel(slider, index) {
    var prefix = slider.currentvalue && slider.currentvalue.prefix;
    var label = plainText(slider.name || prefix || '').replace(/[:\s]+$/, '');
    return label || 'slider ' + (index + 1);
  }

  function menuLabel(menu, index) {
    return plainText(menu.name || '') || 'menu ' + (index + 1);
  }

  // Apply one precomputed step: the same command Plotly's own control would run.
  function runStep(gd, item) {
    var args = item.args || [];
    var Plotly = window.Plotly;
    switch (item.method) {
      case 'restyle': return Plotly.restyle(gd, args[0], args[1]);
      case 'relayout': return Plotly.relayout(gd, args[0]);
      case 'update': return Plotly.update(gd, args[0] || {}, args[1] || {}, args[2]);
      default: return Promise.resolve();
    }
  }

  // Text the chart draws, as plain words (a line break drawn as lines becomes a space). The
  // drawing is hidden from screen readers (course-figures.js), so the description carries it.
  function drawnTexts(gd, selector) {
    return [].map.call(gd.querySelectorAll(selector), function (text) {
      var lines = text.querySelectorAll('tspan.line');
      return squeezed(lines.length ? [].map.call(lines, function (line) { return line.textContent; }).join(' ')
        : text.textContent);  // drawn text is plain already: no markup to read
    }).filter(Boolean);
  }

  function unique(items) {
    return items.filter(function (item, index) { return items.indexOf(item) === index; });
  }

  var MOST_LABELS = 60;  // point labels read out before "and N more"

  // One sentence per axis title (with the names on an axis of categories); where a chart has
  // several panels, which ones: "x axis of panels 1 and 2: dimension."
  function describeAxes(gd, layout) {
    var byLetter = {};  // 'x' -> [[text, [panel, ...]], ...] in panel order
    Object.keys(layout).filter(function (key) { return /^[xyz]axis\d*$/.test(key); }).sort(function (a, b) {
      return a.charAt(0).localeCompare(b.charAt(0)) || (Number(a.slice(5)) || 1) - (Number(b.slice(5)) || 1);
    }).forEach(function (key) {
      var axisTitle = layout[key] && layout[key].title;
      var text = plainText(axisTitle && (axisTitle.text || axisTitle));
      var number = key.slice(5);
      var isCategories = ((gd._fullLayout || {})[key] || {}).type === 'category';
      var categories = isCategories ? unique(drawnTexts(gd, '.' + key.charAt(0) + number + 'tick text')) : [];
      if (categories.length) { text = (text ? text + ': ' : '') + categories.join(', '); }
      var axes = byLetter[key.charAt(0)] = byLetter[key.charAt(0)] || [];
      var same = axes.filter(function (axis) { return axis[0] === text; })[0];
      if (same) { same[1].push(number || '1'); } else { axes.push([text, [number || '1']]); }
    });
    var sentences = [];
    Object.keys(byLetter).forEach(function (letter) {
      var axes = byLetter[letter];
      var panels = axes.reduce(function (count, axis) { return count + axis[1].length; }, 0);
      axes.forEach(function (axis) {
        if (!axis[0]) { return; }
        var which = panels < 2 ? '' : ' of panel' + (axis[1].length > 1 ? 's ' : ' ')
          + axis[1].slice(0, -1).join(', ') + (axis[1].length > 1 ? ' and ' : '') + axis[1][axis[1].length - 1];
        sentences.push(letter + ' axis' + which + ': ' + axis[0] + '.');
      });
    });
    return sentences;
  }

  // The figure's description: its title, the notes drawn on it (panel titles, markers), its
  // axes (with the names on an axis of categories), colour scales, legend and labelled points.
  function describeFigure(gd) {
    var layout = gd.layout || {};
    var parts = [];
    var title = layout.title && (layout.title.text || layout.title);
    if (typeof title === 'string' && plainText(title)) { parts.push('Chart: ' + plainText(title) + '.'); }
    var notes = unique(drawnTexts(gd, '.annotation-text'));
    if (notes.length) { parts.push('On the chart: ' + notes.join('; ') + '.'); }
    parts = parts.concat(describeAxes(gd, layout));
    var scales = unique(drawnTexts(gd, '.cbtitle text'));
    if (scales.length) { parts.push('Colour scale: ' + scales.join(', ') + '.'); }
    var entries = drawnTexts(gd, '.legend .legendtext');
    if (entries.length) { parts.push('Legend: ' + entries.join(', ') + '.'); }
    // Words on points; numbers written in cells are left to the drawing. A 3-D chart draws in
    // WebGL, and shows its points' words when a pointer rests on them: the description says them.
    var labels = drawnTexts(gd, '.textpoint text');
    var hovered = [];
    (gd.data || []).forEach(function (trace) {
      if (trace.type === 'scatter3d') { hovered = hovered.concat([].concat(trace.text || []).map(plainText)); }
    });
    [['Labelled points: ', labels], ['Points, named when pointed at: ', hovered]].forEach(function (kind) {
      var words = unique(kind[1].filter(function (label) { return /[a-z]/i.test(label); }));
      if (!words.length) { return; }
      var more = words.length > MOST_LABELS ? ', and ' + (words.length - MOST_LABELS) + ' more' : '';
      parts.push(kind[0] + words.slice(0, MOST_LABELS).join(', ') + more + '.');
    });
    var controls = (layout.sliders || []).length + (layout.updatemenus || []).length;
    if (controls) { parts.push('Use the controls below the chart to change what it shows.'); }
    return parts.join(' ');
  }

  // The figure's accessible name (its caption) and description (what the chart writes).
  function nameFigure(gd) {
    var figure = gd.closest('figure');
    var caption = figure && figure.querySelector('figcaption');
    gd.setAttribute('role', 'group');
    if (caption) {
      if (!caption.id) { caption.id = nextId('caption'); }
      gd.setAttribute('aria-labelledby', caption.id);
    } else if (!gd.getAttribute('aria-label')) {
      var layout = gd.layout || {};
      var title = layout.title && (layout.title.text || layout.title);
      gd.setAttribute('aria-label', plainText(typeof title === 'string' ? title : '') || 'Interactive chart');
    }
    var description = document.getElementById(gd.id + '-description');
    if (!description) {
      description = document.createElement('p');
      description.id = gd.id + '-description';
      description.className = 'course-visually-hidden';
      gd.parentNode.insertBefore(description, gd.nextSibling);
    }
    description.textContent = describeFigure(gd);
    gd.setAttribute('aria-describedby', description.id);
    // A slider or menu changes the title (and the axes): the description follows.
    ['plotly_update', 'plotly_relayout', 'plotly_afterplot'].forEach(function (name) {
      gd.on(name, function () { description.textContent = describeFigure(gd); });
    });
  }

  // Where the band that Plotly's sliders take at the foot of the chart begins (viewport px),
  // or null when none is drawn there.
  function sliderBandTop(gd) {
    var chart = gd.getBoundingClientRect();
    var top = Infinity;
    gd.querySelectorAll('.slider-container').forEach(function (slider) {
      top = Math.min(top, slider.getBoundingClientRect().top);
    });
    return top > chart.top + chart.height / 2 && top < chart.bottom ? top : null;
  }

  // The closed dropdown of a chart's one menu (when it has no slider), or null.
  function loneDropdown(gd) {
    var menus = (gd.layout && gd.layout.updatemenus) || [];
    var sliders = (gd.layout && gd.layout.sliders) || [];
    var single = menus.length === 1 && (menus[0].type || 'dropdown') === 'dropdown' && !sliders.length;
    return single ? gd.querySelector('.updatemenu-header-group') : null;
  }

  // The closed dropdowns of a chart's several menus (and no slider), in the menus' order, or null.
  function dropdownRow(gd) {
    var menus = (gd.layout && gd.layout.updatemenus) || [];
    var sliders = (gd.layout && gd.layout.sliders) || [];
    var headers = gd.querySelectorAll('.updatemenu-header-group');
    var dropdowns = menus.every(function (menu) { return (menu.type || 'dropdown') === 'dropdown'; });
    return menus.length > 1 && dropdowns && !sliders.length && headers.length === menus.length
      ? [].slice.call(headers) : null;
  }

  // While the controls have the focus they take the place of Plotly's own. Over a slider's band:
  // they start where it starts and take at least the room they had below the chart, so nothing
  // below moves unless they are taller. Over a lone dropdown: laid on it, right edges together
  // (the chart's output holds them: course-explorer-keys.css). Over several dropdowns (lesson 3's
  // five, one per position): each menu laid on its own, its label read but not shown (the chart
  // writes it above); below the chart, five menus and their labels made the page below jump by
  // 115 px (187 on a phone). Otherwise below the chart. Back below the chart, hidden, when the
  // focus leaves them.
  function coverPlotlyControls(gd, panel) {
    var properties = ['position', 'top', 'left', 'right', 'marginTop', 'marginBottom', 'minHeight'];
    function place(style) {
      properties.forEach(function (name) { panel.style[name] = style[name] || ''; });
    }
    var rows = panel.getElementsByClassName('course-explorer-control');
    function layOnMenus(headers) {
      var holder = panel.parentNode.getBoundingClientRect();
      place({position: 'absolute', top: '0', left: '0', marginTop: '0', marginBottom: '0'});
      headers.forEach(function (header, index) {
        var box = header.getBoundingClientRect(), row = rows[index];
        row.classList.add('course-on-menu');
        row.style.top = box.top - holder.top + 'px';
        row.style.left = box.left - holder.left + 'px';
        row.style.width = box.width + 'px';
        row.style.height = box.height + 'px';
      });
    }
    function unlay() {
      [].forEach.call(rows, function (row) {
        row.classList.remove('course-on-menu');
        ['top', 'left', 'width', 'height'].forEach(function (name) { row.style[name] = ''; });
      });
    }
    panel.addEventListener('focusin', function (event) {
      var dropdown = loneDropdown(gd);
      var headers = dropdownRow(gd);
      if (headers) {
        layOnMenus(headers);
      } else if (dropdown) {
        var holder = panel.parentNode.getBoundingClientRect();
        var box = dropdown.getBoundingClientRect();
        place({position: 'absolute', top: box.top - holder.top + 'px', right: holder.right - box.right + 'px',
               marginTop: '0', marginBottom: '0', minHeight: box.height + 'px'});
      } else {
        var band = sliderBandTop(gd);
        place({marginTop: '0px'});
        var top = panel.getBoundingClientRect().top;  // where the controls would start below the chart
        if (band !== null && band < top) {
          place({marginTop: band - top + 'px', marginBottom: '0', minHeight: top - band + 'px'});
        }
      }
      // The browser scrolled the control into view where it was, below the chart: on a short
      // screen its new place can be above the top.
      event.target.scrollIntoView({block: 'nearest'});
    });
    panel.addEventListener('focusout', function (event) {
      if (!panel.contains(event.relatedTarget)) { place({}); unlay(); }
    });
  }

  // Does a control's step rewrite the chart's title (its takeaway: "T = 1024: one-hot up to
  // 131.3 M numbers")? Then the announcement reads the new title after where the control is.
  function rewritesTitle(steps) {
    return steps.some(function (step) {
      return (step.args || []).some(function (change) {
        return change && typeof change === 'object' && ('title.text' in change || 'title' in change);
      });
    });
  }

  function announce(status, label, stepLabel, index, count, gd) {
    var title = gd && gd.layout && gd.layout.title;
    title = gd ? plainText(title && (title.text || title)) : '';
    status.textContent = label + ': ' + stepLabel + ' (step ' + (index + 1) + ' of ' + count + ')' +
      (title ? '. ' + title : '');
  }

  function addSlider(gd, panel, status, slider, index) {
    var steps = slider.steps || [];
    var label = sliderLabel(slider, index);
    var row = document.createElement('div');
    row.className = 'course-explorer-control';
    var input = document.createElement('input');
    input.type = 'range';
    input.id = nextId('slider');
    input.min = '0';
    input.max = String(steps.length - 1);
    input.step = '1';
    var text = document.createElement('label');
    text.htmlFor = input.id;
    text.textContent = label;
    var value = document.createElement('output');
    value.htmlFor = input.id;
    value.setAttribute('aria-hidden', 'true');  // the slider's value text says the same
    // As wide as the longest step's label, so that the slider keeps its length as its value
    // changes (lesson 7's "all seeds" and "marked token" moved its end by 46 px); at most what
    // leaves the slider its own least width beside it (8rem, its margins and the gap), or on a
    // phone the value wrapped onto a line of its own below the slider
    var longest = steps.reduce(function (most, step, position) {
      return Math.max(most, plainText(step.label || String(position)).length);
    }, 0);
    value.style.minWidth = 'max(3rem, min(' + longest + 'ch, 100% - 10rem))';
    row.appendChild(text);
    row.appendChild(input);
    row.appendChild(value);
    panel.appendChild(row);

    function show(active) {
      var stepLabel = plainText(steps[active].label || String(active));
      input.value = String(active);
      input.setAttribute('aria-valuetext', stepLabel + ', step ' + (active + 1) + ' of ' + steps.length);
      value.textContent = stepLabel;
      return stepLabel;
    }
    show(slider.active || 0);

    var titled = rewritesTitle(steps) ? gd : null;
    input.addEventListener('input', function () {
      var active = Number(input.value);
      var stepLabel = show(active);
      var change = {};
      change['sliders[' + index + '].active'] = active;
      runStep(gd, steps[active]).then(function () { return window.Plotly.relayout(gd, change); })
        .then(function () {
          if (Number(input.value) === active) {
            announce(status, label, stepLabel, active, steps.length, titled);
          }
        });
    });
    return function onPlotlyChange(active) {
      if (Number(input.value) === active) { return; }
      announce(status, label, show(active), active, steps.length, titled);
    };
  }

  function addMenu(gd, panel, status, menu, index) {
    var buttons = menu.buttons || [];
    var label = menuLabel(menu, index);
    var row = document.createElement('div');
    row.className = 'course-explorer-control';
    var select = document.createElement('select');
    select.id = nextId('menu');
    buttons.forEach(function (button, position) {
      var option = document.createElement('option');
      option.value = String(position);
      option.textContent = plainText(button.label || String(position));
      select.appendChild(option);
    });
    select.value = String(menu.active || 0);
    var text = document.createElement('label');
    text.htmlFor = select.id;
    text.textContent = label;
    row.appendChild(text);
    row.appendChild(select);
    panel.appendChild(row);

    var titled = rewritesTitle(buttons) ? gd : null;
    select.addEventListener('change', function () {
      var active = Number(select.value);
      var change = {};
      change['updatemenus[' + index + '].active'] = active;
      runStep(gd, buttons[active]).then(function () { return window.Plotly.relayout(gd, change); })
        .then(function () {
          if (Number(select.value) === active) {
            announce(status, label, select.options[active].textContent, active, buttons.length, titled);
          }
        });
    });
    return function onPlotlyChange(active) {
      if (Number(select.value) === active) { return; }
      select.value = String(active);
      announce(status, label, select.options[active].textContent, active, buttons.length, titled);
    };
  }

  // A dropdown long enough to scroll cancels every touch on its items as it starts (so that a
  // finger can drag the list), and a cancelled touch makes no click: a tap on an item chose
  // nothing (plotly.js #6127; lesson 6's 270 words). Such a tap, a touch that ends where it
  // began, clicks the item. A touch that is not cancelled makes its own click and is left alone.
  var TAP_SLOP = 10;  // px a finger may move in a tap
  function clickCancelledTaps(gd) {
    var tap = null;
    gd.addEventListener('touchstart', function (event) {
      var item = event.target.closest && event.target.closest('.updatemenu-dropdown-button');
      var touch = event.touches[0];
      tap = item && event.defaultPrevented && event.touches.length === 1
        ? {item: item, x: touch.clientX, y: touch.clientY} : null;
    });
    gd.addEventListener('touchend', function (event) {
      var touch = event.changedTouches[0];
      if (tap && Math.abs(touch.clientX - tap.x) <= TAP_SLOP && Math.abs(touch.clientY - tap.y) <= TAP_SLOP) {
        tap.item.dispatchEvent(new MouseEvent('click', {bubbles: true, clientX: touch.clientX, clientY: touch.clientY}));
      }
      tap = null;
    });
  }

  function enhance(gd) {
    if (!gd || !gd.classList || !gd.layout || gd.dataset[DONE] === 'yes') { return; }
    gd.dataset[DONE] = 'yes';
    nameFigure(gd);
    var sliders = (gd.layout.sliders || []).filter(function (s) { return (s.steps || []).length > 1; });
    var menus = gd.layout.updatemenus || [];
    if (!sliders.length && !menus.length) { return; }
    if (menus.length) { clickCancelledTaps(gd); }

    var panel = document.createElement('div');
    panel.className = 'course-explorer-controls';
    panel.setAttribute('role', 'group');
    panel.setAttribute('aria-label', 'Keyboard controls for the chart');
    var status = document.createElement('p');  // read out, not shown: the control shows its value
    status.className = 'course-explorer-status course-visually-hidden';
    status.setAttribute('role', 'status');
    status.setAttribute('aria-live', 'polite');

    var onSlider = {};
    var onMenu = {};
    (gd.layout.sliders || []).forEach(function (slider, index) {
      if ((slider.steps || []).length > 1) { onSlider[index] = addSlider(gd, panel, status, slider, index); }
    });
    menus.forEach(function (menu, index) { onMenu[index] = addMenu(gd, panel, status, menu, index); });
    panel.appendChild(status);
    var description = document.getElementById(gd.id + '-description');
    gd.parentNode.insertBefore(panel, description ? description.nextSibling : gd.nextSibling);
    coverPlotlyControls(gd, panel);

    // Plotly's own slider and menus moved by mouse or touch: the native controls follow.
    gd.on('plotly_sliderchange', function (event) {
      var index = event.slider && event.slider._index;
      if (onSlider[index]) { onSlider[index](event.step._index); }
    });
    gd.on('plotly_buttonclicked', function (event) {
      var index = event.menu && event.menu._index;
      if (onMenu[index]) { onMenu[index](event.active); }
    });
  }

  document.addEventListener('course:figure-drawn', function (event) {
    enhance(event.detail && event.detail.element);
  });
  document.querySelectorAll('.js-plotly-plot').forEach(enhance);  // drawn before this script ran
}());
