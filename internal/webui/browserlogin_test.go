package webui_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/triage-dev/triage/internal/identity"
)

// TestBrowserConfirmsLoginAsAnother: in Chromium logged in as the
// server's identity, another identity's login link shows a confirmation
// (under its own policy, whose form may post to the page) and its button
// logs the browser in and shows the page; the link opened again then
// shows the page too.
func TestBrowserConfirmsLoginAsAnother(t *testing.T) {
	s, ctx := newSite(t)
	url := s.srv.LoginURL(s.base, identity.Caller{ID: "token:bob"})
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	heading, err := chromedp.Run(ctx, chromedp.Text("h1"))
	if err != nil || !strings.Contains(heading, "another identity") {
		t.Fatalf("bob's link: heading %q (%v), want the confirmation", heading, err)
	}
	if err := chromedp.Do(ctx, chromedp.Click("form button"), chromedp.WaitVisible("#runs p")); err != nil {
		t.Fatalf("confirming: %v", err)
	}
	if at, err := chromedp.Run(ctx, chromedp.Location()); err != nil || at != s.base+"/ui/" {
		t.Errorf("after the confirmation the browser is at %s (%v)", at, err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible("#runs p")); err != nil {
		t.Fatalf("the used link opened again: %v", err)
	}
	if at, err := chromedp.Run(ctx, chromedp.Location()); err != nil || at != s.base+"/ui/" {
		t.Errorf("the used link opened again: at %s (%v), want the page", at, err)
	}
}
