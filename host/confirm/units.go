package confirm

import (
	"math/big"
	"regexp"
	"strings"
)

// FormatUnits is v in units of 10^decimals, exact, without trailing zeros:
// FormatUnits(1500000000000000000, 18) is "1.5".
func FormatUnits(v *big.Int, decimals int) string {
	if v == nil {
		return ""
	}
	neg := v.Sign() < 0
	s := new(big.Int).Abs(v).String()
	if decimals > 0 {
		if len(s) <= decimals {
			s = strings.Repeat("0", decimals-len(s)+1) + s
		}
		i := len(s) - decimals
		frac := strings.TrimRight(s[i:], "0")
		s = s[:i]
		if frac != "" {
			s += "." + frac
		}
	}
	if neg {
		s = "-" + s
	}
	return s
}

// hexBig parses a 0x quantity ("" and "0x" are zero).
func hexBig(s string) (*big.Int, bool) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if s == "" {
		return new(big.Int), true
	}
	return new(big.Int).SetString(s, 16)
}

var hexRe = regexp.MustCompile(`^0[xX][0-9a-fA-F]*$`)

// isHex reports whether s is 0x-prefixed hex.
func isHex(s string) bool { return hexRe.MatchString(s) }

var numberRe = regexp.MustCompile(`-?[0-9][0-9,]*(\.[0-9]+)?`)

// parseAmount reads the first decimal number of a shown text ("1 ETH",
// "1,000.5 TST", "<0.000001"), as an exact rational, and the count of
// its fraction digits (its precision).
func parseAmount(text string) (*big.Rat, int, bool) {
	m := numberRe.FindString(text)
	if m == "" {
		return nil, 0, false
	}
	m = strings.ReplaceAll(m, ",", "")
	r, ok := new(big.Rat).SetString(m)
	if !ok {
		return nil, 0, false
	}
	digits := 0
	if i := strings.IndexByte(m, '.'); i >= 0 {
		digits = len(m) - i - 1
	}
	return r, digits, true
}

// sameAmount reports whether a shown amount stands for want (a decimal
// string): equal, or equal once want is rounded to the shown precision
// (a wallet shortens long fractions).
func sameAmount(want, shown string) bool {
	w, ok := new(big.Rat).SetString(want)
	if !ok {
		return false
	}
	s, digits, ok := parseAmount(shown)
	if !ok {
		return false
	}
	if w.Cmp(s) == 0 {
		return true
	}
	return w.FloatString(digits) == s.FloatString(digits) && digits > 0
}
