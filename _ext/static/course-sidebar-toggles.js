/* The sidebar buttons a reader sees open the sidebars, on a phone too.
 *
 * The theme draws two "Toggle primary sidebar" buttons (one in the top bar, hidden on this
 * site, and one above the article) and the same for the page's contents, but its scripts
 * listen to the first of each only (document.querySelector). So the visible buttons did
 * nothing: on a phone, the reader could not open the list of lessons. Each later button now
 * passes its click to the first one, whose handlers open the drawer on a narrow screen and
 * fold the sidebar away on a wide one.
 */
(function () {
  'use strict';

  function forward(selector) {
    var buttons = document.querySelectorAll(selector);
    for (var i = 1; i < buttons.length; i++) {
      buttons[i].addEventListener('click', function (event) {
        event.preventDefault();
        event.stopPropagation();
        buttons[0].click();
      });
    }
  }

  function start() {
    forward('.primary-toggle');
    forward('.secondary-toggle');
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
})();
