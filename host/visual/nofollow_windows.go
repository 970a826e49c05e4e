//go:build windows

package visual

const oNoFollow = 0
