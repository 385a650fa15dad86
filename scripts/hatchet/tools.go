//go:build tools

// Package tools pins the Hatchet engine commands that scripts/ensure-hatchet.sh
// builds (hatchet-lite, hatchet-admin, hatchet-migrate). go.sum is the trust
// anchor for every module in the build.
package tools

import (
	_ "github.com/hatchet-dev/hatchet/cmd/hatchet-admin"
	_ "github.com/hatchet-dev/hatchet/cmd/hatchet-lite"
	_ "github.com/hatchet-dev/hatchet/cmd/hatchet-migrate"
)
