// Command godoginit links godog without internal/quickstart: started, it
// runs `go env GOTOOLDIR` while its packages initialise, as every program
// that links godog does. TestStartUpRunsNoGo uses it as the control that
// shows its fake go would see such a call.
package main

import _ "github.com/cucumber/godog"

func main() {}
