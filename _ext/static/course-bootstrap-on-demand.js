/* The theme's Bootstrap script (its menus, tooltips and back-to-top button) loads at the
 * reader's first move, not with the page.
 *
 * The script is a quarter of the JavaScript a lesson runs as it loads, and nothing on the
 * page needs it until the reader points, touches, scrolls or presses a key. The page's
 * tag names the script in data-bootstrap (course_theme/layout.html writes it). A click on a menu
 * button that comes before the script has arrived opens that menu once it has.
 *
 * Only the page's own scroll counts as a move: the theme scrolls its sidebar to the current
 * page's link while the page loads, and that scroll event is no reader's.
 */
(function () {
  'use strict';

  var source = document.currentScript && document.currentScript.dataset.bootstrap;
  if (!source) { return; }
  var INTENT = ['pointerover', 'pointerdown', 'touchstart', 'focusin', 'keydown', 'wheel'];
  var requested = false;
  var waitingMenu = null;

  function load() {
    if (requested) { return; }
    requested = true;
    INTENT.forEach(function (name) { document.removeEventListener(name, load, true); });
    window.removeEventListener('scroll', load);
    var script = document.createElement('script');
    script.src = source;
    script.onload = function () {
      if (waitingMenu && window.bootstrap) {
        window.bootstrap.Dropdown.getOrCreateInstance(waitingMenu).show();
      }
    };
    document.head.appendChild(script);
  }

  document.addEventListener('click', function (event) {
    if (window.bootstrap || !event.target.closest) { return; }
    var menu = event.target.closest('[data-bs-toggle="dropdown"]');
    if (menu) {
      event.preventDefault();
      waitingMenu = menu;
      load();
    }
  }, true);
  INTENT.forEach(function (name) {
    document.addEventListener(name, load, {capture: true, passive: true});
  });
  window.addEventListener('scroll', load, {passive: true});  // not capture: an element's scroll does not reach it
})();
