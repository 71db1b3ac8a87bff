package main

// examples are two calls of each tool as typed after `triage TOOL`, shown by
// `triage TOOL --help`. TestToolHelpExamples checks every tool has two and
// that each is a valid call by the tool's own schema.
var examples = map[string][2]string{
	"session_set_defaults":   {`--project_dir ~/src/app --toolchain cmake`, `--scheme App --simulator_name "iPhone 16" --persist`},
	"session_show_defaults":  {``, `--profile release`},
	"session_clear_defaults": {`--keys scheme --keys simulator_name`, `--profile release`},
	"session_use_profile":    {`--profile release`, `--profile default`},

	"build":             {`--project_dir .`, `--project_dir . --toolchain cargo --level verbose`},
	"test":              {`--project_dir .`, `--project_dir . --run TestParse --timeout_s 300`},
	"run":               {`--program ./build/server --args=--port --args=8080 --timeout_s 10`, `--program ./a.out --stdin "input line" --env '{"ASAN_OPTIONS": "abort_on_error=1"}'`},
	"process_start":     {`--program ./build/server --args=--port --args=8080`, `--program ./worker --cwd /tmp/work`},
	"process_list":      {``, ``},
	"process_output":    {`--id p1`, `--id p1 --cursor 200 --wait_s 5`},
	"process_stop":      {`--id p1`, `--id p1 --grace_s 10`},
	"crash_report_list": {``, `--process server --since_s 3600`},
	"crash_report_show": {`--path ./core.1234`, `--path ./core.1234 --program ./build/server`},

	"xcode_discover_projects":   {`--dir .`, `--dir ~/src --max_depth 3`},
	"xcode_list_schemes":        {`--workspace_path App.xcworkspace`, `--project_path App.xcodeproj`},
	"xcode_show_build_settings": {`--workspace_path App.xcworkspace --scheme App`, `--project_path App.xcodeproj --scheme App --keys PRODUCT_BUNDLE_IDENTIFIER`},
	"xcode_build":               {`--workspace_path App.xcworkspace --scheme App`, `--project_path App.xcodeproj --scheme App --configuration Release`},
	"xcode_test":                {`--workspace_path App.xcworkspace --scheme App --simulator_name "iPhone 16"`, `--scheme App --only_testing AppTests/ParserTests`},
	"xcode_clean":               {`--workspace_path App.xcworkspace --scheme App`, `--project_path App.xcodeproj --scheme App`},

	"sim_list":                {``, `--booted_only`},
	"sim_boot":                {`--simulator_name "iPhone 16"`, `--simulator_id 5A1B2C3D-0000-4000-8000-000000000000`},
	"sim_install_app":         {`--app_path build/App.app --simulator_name "iPhone 16"`, `--app_path build/App.app`},
	"sim_launch_app":          {`--bundle_id com.example.App`, `--bundle_id com.example.App --args -resetState --watch_s 10`},
	"sim_stop_app":            {`--bundle_id com.example.App`, `--bundle_id com.example.App --simulator_name "iPhone 16"`},
	"sim_build_run":           {`--workspace_path App.xcworkspace --scheme App --simulator_name "iPhone 16"`, `--scheme App --watch_s 10`},
	"sim_screenshot":          {``, `--simulator_name "iPhone 16"`},
	"sim_log_capture":         {`--action start --bundle_id com.example.App`, `--action stop`},
	"device_list":             {``, ``},
	"device_install_app":      {`--app_path build/Debug-iphoneos/App.app`, `--app_path build/Debug-iphoneos/App.app --device_id 00008120-0014485601E3C01E`},
	"device_launch_app":       {`--bundle_id com.example.App`, `--bundle_id com.example.App --console --watch_s 30`},
	"device_stop_app":         {`--pid 1234`, `--pid 1234 --device_id "Jo's iPhone"`},
	"device_build_run":        {`--workspace_path App.xcworkspace --scheme App --device_id 00008120-0014485601E3C01E`, `--scheme App --watch_s 30`},
	"device_crash_reports":    {`--process App`, `--process App --since_s 600`},
	"macos_launch_app":        {`--app_path build/Debug/App.app`, `--bundle_id com.example.App --args -NSShowAllViews --watch_s 10`},
	"macos_stop_app":          {`--process_name App`, `--process_name "My App"`},
	"macos_build_run":         {`--project_path App.xcodeproj --scheme App`, `--scheme App --watch_s 10`},
	"debug_attach":            {`--program ./a.out --breakpoints main.c:42`, `--core ./core.1234 --program ./a.out`},
	"debug_attach_sim":        {`--bundle_id com.example.App`, `--bundle_id com.example.App --launch`},
	"debug_breakpoint_add":    {`--location parse.c:88`, `--location parse_line --condition "n > 100"`},
	"debug_breakpoint_remove": {`--id 1`, `--session_id d1 --id 2`},
	"debug_continue":          {`--wait_s 30`, `--session_id d1 --wait_s 5`},
	"debug_step":              {``, `--kind in`},
	"debug_pause":             {``, `--session_id d1`},
	"debug_stack":             {``, `--max_frames 50`},
	"debug_variables":         {``, `--frame 2 --depth 3`},
	"debug_evaluate":          {`--expression "items[0]"`, `--expression "*node" --frame 1`},
	"debug_memory":            {`--address buf --count 32`, `--kind disassemble --frame 1`},
	"debug_command":           {`--command "info registers"`, `--command "thread backtrace all"`},
	"debug_detach":            {``, `--session_id d1`},

	"debug_observe": {`--program ./a.out`, `--program ./a.out --tracepoints '[{"location": "loop.c:7", "exprs": ["i", "acc"], "limit": 100}]'`},

	"dump_open":    {`--core ./core.1234 --program ./a.out`, `--vmcore /var/crash/vmcore --vmlinux /usr/lib/debug/boot/vmlinux-6.1.0`},
	"dump_report":  {``, `--session_id k1 --force`},
	"dump_command": {`--command bt`, `--command "drgn: prog.crashed_thread().stack_trace()"`},
	"dump_scripts": {``, `--name tasks.py`},
	"dump_list":    {``, ``},
	"dump_close":   {``, `--session_id k1`},

	"output_get":    {`--output_id o-0123456789 --offset 200`, `--output_id o-0123456789 --offset 0 --limit 50`},
	"output_search": {`--pattern "error|panic"`, `--output_id o-0123456789 --pattern "^FAIL" --context 3`},
	"output_list":   {``, `--limit 50`},

	"doctor": {``, ``},
}
