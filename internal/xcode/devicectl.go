// Physical devices through `xcrun devicectl` (Xcode 15 and later). Every
// devicectl command here writes its answer with --json-output FILE: an
// envelope {"info": {"outcome": ...}, "result": ...} or, when it failed,
// {"error": {"code", "domain", "userInfo"}, "info": ...}. The answer file is
// read rather than stdout, whose text is for people and changes between
// Xcode versions.

package xcode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DevicectlTimeout bounds a devicectl command (a first connection to a
// device over the network sets up a tunnel, which takes a while).
const DevicectlTimeout = 2 * time.Minute

// PhysicalDevice is a device devicectl knows: paired, connected or not.
type PhysicalDevice struct {
	// Identifier is CoreDevice's identifier; UDID the device's own.
	Identifier    string `json:"identifier"`
	UDID          string `json:"udid,omitempty"`
	Name          string `json:"name,omitempty"`
	Model         string `json:"model,omitempty"`    // "iPhone 14 Pro"
	Platform      string `json:"platform,omitempty"` // "iOS", "watchOS"
	OSVersion     string `json:"os_version,omitempty"`
	Transport     string `json:"transport,omitempty"`      // "wired", "localNetwork"
	Pairing       string `json:"pairing,omitempty"`        // "paired", "unpaired"
	Tunnel        string `json:"tunnel,omitempty"`         // "connected", "disconnected", "unavailable"
	DeveloperMode string `json:"developer_mode,omitempty"` // "enabled", "disabled"
}

// ID is what devicectl's --device and xcodebuild's destination take: the
// UDID, else CoreDevice's identifier.
func (d PhysicalDevice) ID() string {
	if d.UDID != "" {
		return d.UDID
	}
	return d.Identifier
}

// Label names a device in verdicts: "iPhone (iOS 18.4.1, UDID)".
func (d PhysicalDevice) Label() string {
	name := d.Name
	if name == "" {
		name = d.Model
	}
	if name == "" {
		return d.ID()
	}
	if os := strings.TrimSpace(d.Platform + " " + d.OSVersion); os != "" {
		return fmt.Sprintf("%s (%s, %s)", strings.TrimSpace(name), os, d.ID())
	}
	return fmt.Sprintf("%s (%s)", strings.TrimSpace(name), d.ID())
}

// DevicectlError reports a devicectl command that ran and failed, with the
// error record of its answer.
type DevicectlError struct {
	Command string // "device process launch"
	Domain  string // "com.apple.dt.CoreDeviceError"
	Code    int
	// Message is the error's description, else the first ERROR line
	// devicectl printed.
	Message string
	// Detail is the end of what devicectl printed on stderr (bounded): the
	// chain of underlying errors, which its answer's description leaves out.
	Detail string
}

func (e *DevicectlError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = "no message"
	}
	if e.Domain == "" {
		return fmt.Sprintf("devicectl %s: %s", e.Command, msg)
	}
	return fmt.Sprintf("devicectl %s: %s (%s error %d)", e.Command, msg, e.Domain, e.Code)
}

// AppNotInstalled reports whether the failure is LaunchServices' "no
// application with that identifier" (OSStatus -10814,
// kLSApplicationNotFoundErr), which devicectl passes on when asked to
// launch an app the device does not have.
func (e *DevicectlError) AppNotInstalled() bool {
	return e.Domain == "NSOSStatusErrorDomain" && e.Code == -10814
}

// DeviceLocked reports whether the failure is SpringBoard refusing to open
// an app on a locked device: devicectl's error chain ends in
// FBSOpenApplicationErrorDomain error 7, "BSErrorCodeDescription = Locked"
// (as recorded in testdata/devicectl/launch_locked.stderr).
func (e *DevicectlError) DeviceLocked() bool {
	return strings.Contains(e.Detail, "BSErrorCodeDescription = Locked") ||
		strings.Contains(e.Detail, "(FBSOpenApplicationErrorDomain error 7.)")
}

// DeviceNotFoundError reports a device argument that names no device
// devicectl knows (Known lists those it does), or no device at all.
type DeviceNotFoundError struct {
	ID    string
	Known []PhysicalDevice
}

func (e *DeviceNotFoundError) Error() string {
	if len(e.Known) == 0 {
		return "no physical device: devicectl lists none (connect one by cable, unlock it and trust this Mac, or pair it in Xcode's Devices window)"
	}
	names := make([]string, len(e.Known))
	for i, d := range e.Known {
		names[i] = d.Label()
	}
	if e.ID == "" {
		return "several devices are known; give device_id, one of: " + strings.Join(names, "; ")
	}
	return fmt.Sprintf("no device %q; devicectl knows: %s", e.ID, strings.Join(names, "; "))
}

type devicectlAnswer struct {
	Info struct {
		Outcome string `json:"outcome"`
	} `json:"info"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code     int                        `json:"code"`
		Domain   string                     `json:"domain"`
		UserInfo map[string]json.RawMessage `json:"userInfo"`
	} `json:"error"`
}

// devicectl runs `xcrun devicectl --json-output FILE args...` and returns
// the answer's result. --json-output goes first, before the subcommand, so
// that it is never taken for one of a launched app's arguments.
func devicectl(ctx context.Context, args []string, timeout time.Duration) (json.RawMessage, error) {
	dir, err := os.MkdirTemp("", "triage-devicectl-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	answer := filepath.Join(dir, "answer.json")
	argv := append([]string{"xcrun", "devicectl", "--json-output", answer}, args...)
	if timeout <= 0 {
		timeout = DevicectlTimeout
	}
	_, runErr := Run(ctx, Command{Argv: argv}, timeout)
	raw, readErr := os.ReadFile(answer)
	if readErr != nil {
		// No answer: stderr's ERROR lines, else the exit status, are all
		// there is (a caller that needs a result fails reading none).
		var ce *CommandError
		if errors.As(runErr, &ce) && firstError(ce.Stderr) != "" {
			return nil, &DevicectlError{Command: commandName(args), Message: firstError(ce.Stderr), Detail: ce.Stderr}
		}
		return nil, runErr
	}
	return parseAnswer(raw, commandName(args), runErr)
}

// parseAnswer reads a devicectl answer; runErr is how the command ended.
func parseAnswer(raw []byte, command string, runErr error) (json.RawMessage, error) {
	var a devicectlAnswer
	if err := json.Unmarshal(bytes.TrimSpace(raw), &a); err != nil {
		return nil, fmt.Errorf("devicectl %s: reading its answer: %w", command, err)
	}
	if a.Error == nil && a.Info.Outcome == "success" && runErr == nil {
		return a.Result, nil
	}
	e := &DevicectlError{Command: command}
	if a.Error != nil {
		e.Domain, e.Code, e.Message = a.Error.Domain, a.Error.Code, describe(a.Error.UserInfo)
	}
	var ce *CommandError
	if errors.As(runErr, &ce) {
		e.Detail = ce.Stderr
		if e.Message == "" {
			e.Message = firstError(ce.Stderr)
		}
	}
	if e.Message == "" && e.Domain == "" && runErr != nil {
		return nil, runErr
	}
	return nil, e
}

// describe returns the error's localized description or failure reason;
// devicectl wraps each userInfo value in its type ({"string": "..."}).
func describe(info map[string]json.RawMessage) string {
	for _, key := range []string{"NSLocalizedDescription", "NSLocalizedFailureReason"} {
		var v struct {
			String string `json:"string"`
		}
		if json.Unmarshal(info[key], &v) == nil && v.String != "" {
			return v.String
		}
	}
	return ""
}

// firstError returns the message of the first "ERROR: " line of stderr.
func firstError(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(l), "ERROR: "); ok {
			return m
		}
	}
	return ""
}

// commandName is the subcommand words before the first option.
func commandName(args []string) string {
	var words []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			break
		}
		words = append(words, a)
	}
	return strings.Join(words, " ")
}

// ListDevices returns the physical devices devicectl knows (simulators,
// which newer Xcodes list too, are left out).
func ListDevices(ctx context.Context) ([]PhysicalDevice, error) {
	raw, err := devicectl(ctx, []string{"list", "devices"}, 0)
	if err != nil {
		return nil, err
	}
	return parseDevices(raw)
}

func parseDevices(raw json.RawMessage) ([]PhysicalDevice, error) {
	var r struct {
		Devices []struct {
			Identifier string `json:"identifier"`
			Connection struct {
				Pairing   string `json:"pairingState"`
				Transport string `json:"transportType"`
				Tunnel    string `json:"tunnelState"`
			} `json:"connectionProperties"`
			Device struct {
				Name          string `json:"name"`
				OSVersion     string `json:"osVersionNumber"`
				DeveloperMode string `json:"developerModeStatus"`
			} `json:"deviceProperties"`
			Hardware struct {
				Model    string `json:"marketingName"`
				Platform string `json:"platform"`
				Reality  string `json:"reality"`
				UDID     string `json:"udid"`
			} `json:"hardwareProperties"`
		} `json:"devices"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("devicectl list devices: reading its answer: %w", err)
	}
	out := []PhysicalDevice{}
	for _, d := range r.Devices {
		if d.Hardware.Reality == "simulated" {
			continue
		}
		out = append(out, PhysicalDevice{
			Identifier: d.Identifier, UDID: d.Hardware.UDID, Name: strings.TrimSpace(d.Device.Name),
			Model: d.Hardware.Model, Platform: d.Hardware.Platform, OSVersion: d.Device.OSVersion,
			Transport: d.Connection.Transport, Pairing: d.Connection.Pairing, Tunnel: d.Connection.Tunnel,
			DeveloperMode: d.Device.DeveloperMode,
		})
	}
	return out, nil
}

// FindDevice returns the device id names (its UDID, CoreDevice identifier
// or name, case aside); with id empty, the only device there is.
func FindDevice(ctx context.Context, id string) (PhysicalDevice, error) {
	devices, err := ListDevices(ctx)
	if err != nil {
		return PhysicalDevice{}, err
	}
	if id == "" && len(devices) == 1 {
		return devices[0], nil
	}
	for _, d := range devices {
		if id != "" && (strings.EqualFold(d.UDID, id) || strings.EqualFold(d.Identifier, id) || strings.EqualFold(d.Name, id)) {
			return d, nil
		}
	}
	return PhysicalDevice{}, &DeviceNotFoundError{ID: id, Known: devices}
}
