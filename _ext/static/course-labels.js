/* Accessible names that contain what the reader sees (WCAG 2.5.3, Label in Name).
 *
 * The theme names some controls differently from their visible text, so a reader who says
 * what they see ("click Search") is not understood by speech input:
 * - the search button shows "Search Ctrl+K" but is named "Search": its text becomes its name,
 *   and the shortcut is declared with aria-keyshortcuts;
 * - the colour-mode button is named "Color mode", but its icons carry titles ("Light",
 *   "System Settings"): the icons are decoration inside a named button, so they lose their
 *   titles and are hidden;
 * - a hidden code cell's toggle shows "Show code cell source" but is named "Toggle hidden
 *   content": its visible text becomes its name.
 * Font Awesome swaps icons for SVG after load, so the icons are hidden again when they change.
 *
 * A figure is named by its caption ("Fig. 3 The sinusoidal table..."), so that a screen
 * reader announces it when it enters the figure.
 */
(function () {
  'use strict';

  function hideIcons(button) {
    button.querySelectorAll('i, svg').forEach(function (icon) {
      if (icon.getAttribute('aria-hidden') !== 'true') { icon.setAttribute('aria-hidden', 'true'); }
      icon.removeAttribute('title');
      icon.removeAttribute('role');
      icon.removeAttribute('aria-labelledby');
      icon.querySelectorAll('title').forEach(function (title) { title.remove(); });
    });
  }

  function fixLabels() {
    document.querySelectorAll('.search-button-field[aria-label]').forEach(function (button) {
      button.removeAttribute('aria-label');
      button.setAttribute('aria-keyshortcuts', 'Control+K');
    });
    document.querySelectorAll('details > summary[aria-label]').forEach(function (summary) {
      if (summary.textContent.trim()) { summary.removeAttribute('aria-label'); }
    });
    document.querySelectorAll('figure').forEach(function (figure, index) {
      var caption = figure.querySelector(':scope > figcaption');
      if (!caption || figure.hasAttribute('aria-labelledby')) { return; }
      if (!caption.id) { caption.id = 'course-figure-caption-' + (index + 1); }
      figure.setAttribute('aria-labelledby', caption.id);
    });
    document.querySelectorAll('.theme-switch-button').forEach(function (button) {
      hideIcons(button);
      if (!button.dataset.courseWatched) {
        button.dataset.courseWatched = 'yes';
        new MutationObserver(function () { hideIcons(button); })
          .observe(button, {childList: true, subtree: true});
      }
    });
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', fixLabels);
  } else {
    fixLabels();
  }
  window.addEventListener('load', fixLabels);
}());
