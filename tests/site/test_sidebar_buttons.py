"""The sidebar buttons a reader sees open the sidebars, on a phone and on a wide screen."""

from __future__ import annotations

from .test_pages_in_browser import visit

PAGE = "book/lessons/04_sinusoidal_positions.html"
MODAL_OPEN = "id => document.getElementById(id).open"


def test_on_a_phone_the_visible_buttons_open_the_lessons_and_the_contents(browser, site_url):
    result = visit(browser, f"{site_url}/{PAGE}", site_url, viewport=(390, 844))
    page = result.page
    try:
        page.locator(".primary-toggle:visible").first.tap()
        page.wait_for_function(MODAL_OPEN, arg="pst-primary-sidebar-modal", timeout=5000)
        lessons = page.locator("#pst-primary-sidebar-modal a:visible", has_text="One-hot encoding")
        assert lessons.count() == 1
        page.keyboard.press("Escape")
        page.wait_for_function(f"!({MODAL_OPEN})('pst-primary-sidebar-modal')", timeout=5000)
        page.locator(".secondary-toggle:visible").first.tap()
        page.wait_for_function(MODAL_OPEN, arg="pst-secondary-sidebar-modal", timeout=5000)
        assert page.locator("#pst-secondary-sidebar-modal a:visible", has_text="The formula").count() == 1
        assert not result.console_errors, result.console_errors
    finally:
        page.context.close()


def test_on_a_wide_screen_the_visible_button_folds_the_lessons_away(browser, site_url):
    result = visit(browser, f"{site_url}/{PAGE}", site_url)
    page = result.page
    try:
        sidebar = page.locator("#pst-primary-sidebar")
        assert sidebar.is_visible()
        page.locator(".primary-toggle:visible").first.click()
        page.wait_for_function("() => document.getElementById('pst-primary-sidebar')"
                               ".classList.contains('pst-sidebar-hidden')", timeout=5000)
        assert not page.evaluate(MODAL_OPEN, "pst-primary-sidebar-modal")
        assert not result.console_errors, result.console_errors
    finally:
        page.context.close()
