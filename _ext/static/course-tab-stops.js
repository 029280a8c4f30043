/* Where the keyboard focus goes.
 *
 * A box that scrolls sideways takes the keyboard focus (so it can be scrolled with the arrow
 * keys), named for what it is ("table, scrolls sideways"); a box that does not scroll is no
 * tab stop. The theme decides this once, when the page has loaded, for code blocks and outputs
 * only. Here the boxes, wide formulas too, are watched once the page has loaded and the browser
 * is idle, and each box is measured when the browser has laid it out anyway: when it comes
 * near the screen and whenever its size changes. Nothing is written before a box is measured,
 * so the page's style is not recomputed for nothing, and a box that starts or stops scrolling
 * when the window is resized follows.
 *
 * A button pressed with a key keeps the focus. The copy button lost it (clipboard.js copies
 * from a hidden text area it focuses and then removes), and so did the theme's colour-mode,
 * search and sidebar buttons, which blur themselves: the next Tab started again at the top of
 * the page. A closed dialog gives the focus back to the button that opened it. A copy is also
 * announced, and the colour-mode button says which mode is on.
 */
(function () {
  'use strict';

  var BOXES = ['pre', '.nboutput > .output_area', '.cell_output > .output', '.jp-RenderedHTMLCommon',
               '.pst-scrollable-table-container', 'div.math.course-math > mjx-container'].join(', ');

  // What a focusable box is, for its name; a formula keeps the name its mathematics gives it.
  var KINDS = [['.pst-scrollable-table-container', 'table'], ['pre', 'code'],
               ['.output_area, .output, .jp-RenderedHTMLCommon', 'output']];

  function tabStop(box) {
    return box.scrollWidth > box.clientWidth || box.scrollHeight > box.clientHeight ? 0 : -1;
  }

  function setTabStop(box, stop) {
    box.tabIndex = stop;
    var kind = KINDS.filter(function (pair) { return box.matches(pair[0]); })[0];
    if (stop === 0 && kind && !box.hasAttribute('aria-label')) {
      box.setAttribute('role', 'region');
      box.setAttribute('aria-label', kind[1] + ', scrolls sideways');
      box.dataset.courseNamed = '';
    } else if (stop !== 0 && box.dataset.courseNamed !== undefined) {
      box.removeAttribute('role');
      box.removeAttribute('aria-label');
      delete box.dataset.courseNamed;
    }
  }

  // Measure every reported box first, then change the ones that differ: a change between two
  // measurements would make the browser recompute the page's style before the next one.
  function updateAll(entries) {
    var boxes = entries.map(function (entry) { return entry.target; });
    var stops = boxes.map(tabStop);
    boxes.forEach(function (box, index) {
      // the theme made some boxes tab stops already, with no name
      if (box.tabIndex !== stops[index] || (stops[index] === 0 && !box.hasAttribute('aria-label'))) {
        setTabStop(box, stops[index]);
      }
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

  var status = null;  // read out, not shown
  function announce(text) {
    if (!status) {
      status = document.createElement('p');
      status.className = 'course-visually-hidden';
      status.setAttribute('role', 'status');
      document.body.appendChild(status);
    }
    status.textContent = '';
    window.setTimeout(function () { status.textContent = text; }, 50);  // the same text again is read too
  }

  // Nowhere the reader can go on from: the page's body, or a dialog that has closed (a tap beside
  // a drawer focuses the dialog itself before it closes).
  function focusLost() {
    var active = document.activeElement;
    return !active || active === document.body || Boolean(active.closest && active.closest('dialog:not([open])'));
  }
  function refocus(button) {
    if (focusLost() && button && button.isConnected && button.getClientRects().length) {
      button.focus({preventScroll: true});
    }
  }

  var opener = null;  // the button that opened the dialog open now (a drawer, the search)
  document.addEventListener('click', function (event) {
    var button = event.target.closest && event.target.closest('button');
    if (!button) { return; }
    window.setTimeout(function () {
      if (document.querySelector('dialog[open]') && !button.closest('dialog')) { opener = button; }
      if (event.detail !== 0) { return; }  // detail 0: pressed with a key, not clicked
      refocus(button);
      if (button.classList.contains('copybtn')) { announce(button.getAttribute('data-tooltip') || 'Copied'); }
    }, 0);
  }, true);  // on its way down: the theme's sidebar buttons stop the click from bubbling
  // A dialog closed (Escape, a tap beside it) gives the focus back to the button that opened it:
  // the theme leaves it on <body>, so a screen reader starts again at the top (restoring it is
  // left to a follow-up of pydata-sphinx-theme PR #2338). 'close' does not bubble: caught on its way down.
  document.addEventListener('close', function (event) {
    if (event.target.tagName !== 'DIALOG') { return; }
    window.setTimeout(function () { refocus(opener); opener = null; }, 0);
  }, true);

  // The colour-mode button's name says the mode: the theme writes it on <html data-mode>.
  var MODES = {auto: 'as the system', light: 'light', dark: 'dark'};
  function nameModeButtons() {
    var mode = MODES[document.documentElement.dataset.mode] || MODES.auto;
    document.querySelectorAll('.theme-switch-button').forEach(function (button) {
      button.setAttribute('aria-label', 'Color mode: ' + mode);
    });
  }
  nameModeButtons();
  new MutationObserver(nameModeButtons).observe(document.documentElement,
                                                {attributes: true, attributeFilter: ['data-mode']});
})();
