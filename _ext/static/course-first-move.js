/* The scripts that only answer the reader load at the reader's first move, not with the page.
 *
 * The theme's scripts (its menus, tooltips, search, colour-mode and sidebar buttons, and the
 * back-to-top button), Sphinx's (search-word highlighting) and the copy buttons' are most of
 * the JavaScript a lesson would run as it loads, and nothing they do is seen before the reader
 * points, touches, scrolls or presses a key. On a phone each is a task that holds up the first
 * tap. The page's tag names them in data-scripts, in the order they run (course_theme/layout.html
 * writes it, first_paint.py picks them). A page opened from a search result, whose address
 * names the words to highlight, loads them at once.
 *
 * A button in the page's bars pressed before the scripts have arrived is pressed again once
 * they have (its menu opens, the colour mode changes), and so is the search shortcut (Ctrl+K).
 * Only a scroll of the page itself counts as a move, not a scroll of a box inside it.
 */
(function () {
  'use strict';

  var tag = document.currentScript;
  var sources = tag && tag.dataset.scripts ? tag.dataset.scripts.split(' ').filter(Boolean) : [];
  if (!sources.length) { return; }
  var INTENT = ['pointerover', 'pointerdown', 'touchstart', 'focusin', 'keydown', 'wheel'];
  var requested = false;
  var arrived = false;
  var pressed = [];  // buttons pressed, and shortcuts typed, before the scripts arrived

  function load() {
    if (requested) { return; }
    requested = true;
    INTENT.forEach(function (name) { document.removeEventListener(name, load, true); });
    window.removeEventListener('scroll', load);
    var waiting = sources.length;
    sources.forEach(function (source) {
      var script = document.createElement('script');
      script.src = source;
      script.async = false;  // they run in the order named
      script.onload = script.onerror = function () {
        waiting -= 1;
        if (waiting === 0) { replay(); }
      };
      document.head.appendChild(script);
    });
  }

  function replay() {
    arrived = true;
    pressed.forEach(function (press) { press(); });
    pressed = [];
  }

  document.addEventListener('click', function (event) {
    if (arrived || !event.target.closest) { return; }
    var button = event.target.closest('button');  // a bar's (the article's own buttons answer at once)
    if (button && !button.closest('.bd-article')) {
      event.preventDefault();
      event.stopImmediatePropagation();
      pressed.push(function () { button.click(); });
      load();
    }
  }, true);
  document.addEventListener('keydown', function (event) {  // the theme's search shortcut
    if (arrived || !(event.ctrlKey || event.metaKey) || event.code !== 'KeyK') { return; }
    event.preventDefault();
    var copy = {key: event.key, code: event.code, ctrlKey: event.ctrlKey, metaKey: event.metaKey,
                bubbles: true, cancelable: true};
    pressed.push(function () { document.dispatchEvent(new KeyboardEvent('keydown', copy)); });
  }, true);
  INTENT.forEach(function (name) {
    document.addEventListener(name, load, {capture: true, passive: true});
  });
  window.addEventListener('scroll', load, {passive: true});  // not capture: an element's scroll does not reach it
  if (/[?&]highlight=/.test(location.search)) { load(); }
})();
