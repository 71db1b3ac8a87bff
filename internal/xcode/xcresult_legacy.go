package xcode

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// The legacy format (`xcresulttool get --legacy --format json`, and plain
// `get --format json` before Xcode 16) wraps every value in an object that
// names its type: {"_type": {"_name": "Int"}, "_value": "3"}, and every array
// in {"_values": [...]}.

type legacyValue struct {
	Value string `json:"_value"`
}

type legacyArray[T any] struct {
	Values []T `json:"_values"`
}

type legacyIssue struct {
	Message      legacyValue `json:"message"`
	TestCaseName legacyValue `json:"testCaseName"`
	Target       legacyValue `json:"producingTarget"`
	Location     struct {
		URL legacyValue `json:"url"`
	} `json:"documentLocationInCreatingWorkspace"`
}

type legacyMetrics struct {
	TestsCount        *legacyValue `json:"testsCount"`
	TestsFailedCount  *legacyValue `json:"testsFailedCount"`
	TestsSkippedCount *legacyValue `json:"testsSkippedCount"`
}

type legacyRecord struct {
	Type *struct {
		Name string `json:"_name"`
	} `json:"_type"`
	Metrics *legacyMetrics `json:"metrics"`
	Issues  struct {
		TestFailures legacyArray[legacyIssue] `json:"testFailureSummaries"`
		Errors       legacyArray[legacyIssue] `json:"errorSummaries"`
	} `json:"issues"`
	Actions *legacyArray[struct {
		Title          legacyValue `json:"title"`
		RunDestination struct {
			DisplayName  legacyValue `json:"displayName"`
			TargetDevice struct {
				Identifier legacyValue `json:"identifier"`
				OSVersion  legacyValue `json:"operatingSystemVersion"`
				ModelName  legacyValue `json:"modelName"`
				Platform   struct {
					UserDescription legacyValue `json:"userDescription"`
				} `json:"platformRecord"`
			} `json:"targetDeviceRecord"`
		} `json:"runDestination"`
		ActionResult struct {
			Status legacyValue `json:"status"`
		} `json:"actionResult"`
	}] `json:"actions"`
}

// ParseLegacy parses the ActionsInvocationRecord that `xcresulttool get
// --legacy --format json --path P` prints, into the same summary as
// ParseSummary. It knows the counts and the failures, not passing tests.
func ParseLegacy(out []byte) (*TestSummary, error) {
	var rec legacyRecord
	if err := decodeJSON("legacy xcresult", out, '{', &rec); err != nil {
		return nil, err
	}
	if rec.Type != nil && rec.Type.Name != "ActionsInvocationRecord" {
		return nil, fmt.Errorf("parsing legacy xcresult: a %s, not an ActionsInvocationRecord", rec.Type.Name)
	}
	if rec.Metrics == nil && rec.Actions == nil {
		return nil, fmt.Errorf("parsing legacy xcresult: no \"metrics\" or \"actions\" (is this the Xcode 16 format? use ParseSummary)")
	}
	s := &TestSummary{Legacy: true}
	if m := rec.Metrics; m != nil {
		var err error
		for _, f := range []struct {
			v   *legacyValue
			dst *int
		}{{m.TestsCount, &s.Total}, {m.TestsFailedCount, &s.Failed}, {m.TestsSkippedCount, &s.Skipped}} {
			if *f.dst, err = legacyInt(f.v); err != nil {
				return nil, err
			}
		}
	}
	s.Passed = max(s.Total-s.Failed-s.Skipped, 0)
	for _, is := range rec.Issues.TestFailures.Values {
		s.Failures = append(s.Failures, TestFailure{
			TestName: is.TestCaseName.Value, Target: is.Target.Value, Text: is.Message.Value,
			Location: locationPath(is.Location.URL.Value),
		})
	}
	for _, is := range rec.Issues.Errors.Values {
		s.Errors = append(s.Errors, is.Message.Value)
	}
	failedAction := false
	if rec.Actions != nil {
		for _, a := range rec.Actions.Values {
			if s.Title == "" {
				s.Title = a.Title.Value
			}
			failedAction = failedAction || a.ActionResult.Status.Value == "failed"
			dev := a.RunDestination.TargetDevice
			if name := a.RunDestination.DisplayName.Value; name != "" {
				s.Devices = append(s.Devices, DeviceRun{
					DeviceName: name, DeviceID: dev.Identifier.Value, OSVersion: dev.OSVersion.Value,
					Model: dev.ModelName.Value, Platform: dev.Platform.UserDescription.Value,
				})
			}
		}
	}
	switch {
	case s.Failed > 0 || len(s.Failures) > 0 || failedAction:
		s.Result = ResultFailed
	case s.Passed > 0:
		s.Result = ResultPassed
	default:
		s.Result = ResultUnknown
	}
	return s, nil
}

func legacyInt(v *legacyValue) (int, error) {
	if v == nil || v.Value == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v.Value)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("parsing legacy xcresult: count %q is not a number", v.Value)
	}
	return n, nil
}

// locationPath returns the file of a "file:///path/File.swift#...LineNumber=12"
// document location, or the text as is when it is not such a URL.
func locationPath(loc string) string {
	if loc == "" {
		return ""
	}
	u, err := url.Parse(loc)
	if err != nil || u.Scheme != "file" {
		return loc
	}
	p := u.Path
	if frag := u.Fragment; frag != "" {
		if q, err := url.ParseQuery(frag); err == nil {
			if line := q.Get("StartingLineNumber"); line != "" {
				// Xcode's document locations count lines from 0.
				if n, err := strconv.Atoi(line); err == nil {
					return p + ":" + strconv.Itoa(n+1)
				}
			}
		}
	}
	return strings.TrimSpace(p)
}
