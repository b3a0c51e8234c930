package kcpref

import (
	"math"
	"testing"
)

func TestFormatJSNumber(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {0.25, "0.25"}, {-1.5, "-1.5"},
		{0.30000000000000004, "0.30000000000000004"}, {1e21, "1e+21"}, {1.5e21, "1.5e+21"}, {1e20, "100000000000000000000"},
		{1e-6, "0.000001"}, {1e-7, "1e-7"}, {1.23e-18, "1.23e-18"}, {123456789012345680000, "123456789012345680000"},
		{math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"}, {5e-324, "5e-324"},
	}
	for _, tt := range tests {
		if got := formatJSNumber(tt.in); got != tt.want {
			t.Errorf("String(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestToFixedRoundsHalfUp(t *testing.T) {
	tests := []struct {
		in     float64
		digits int
		want   string
	}{
		{0.125, 2, "0.13"},         // exact binary tie: half up (Go would say 0.12)
		{0.0078125, 6, "0.007813"}, // the notes' example
		{0.30000000000000004, 6, "0.300000"},
		{1.005, 2, "1.00"},           // 1.005 is below the tie in binary
		{-0.0000001, 6, "-0.000000"}, // sign kept
		{-0.125, 2, "-0.13"},         // away from zero
		{1e21, 6, "1e+21"},
	}
	for _, tt := range tests {
		if got := jsToFixed(tt.in, tt.digits); got != tt.want {
			t.Errorf("(%v).toFixed(%d) = %q, want %q", tt.in, tt.digits, got, tt.want)
		}
	}
	if got := money(0.0078125); got != 0.007813 {
		t.Errorf("money(0.0078125) = %v", got)
	}
	if got := money(0.25 - 0.2 - 0.05); got != 0 {
		t.Errorf("money(0.25-0.2-0.05) = %v", got)
	}
}

func TestFormatTokens(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{3000, "3,000"}, {100, "100"}, {900, "900"}, {1234567.5, "1,234,568"}, {2.5, "3"}, {-2.5, "-2"},
		{-0.4, "-0"}, {0.49999999999999994, "0"}, {1e21, "1,000,000,000,000,000,000,000"}, {-1240, "-1,240"},
	}
	for _, tt := range tests {
		if got := formatTokens(tt.in); got != tt.want {
			t.Errorf("tokens(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestJSONStringLikeJavaScript(t *testing.T) {
	got := jsonStringArray([]string{"dev", `a"b\c`, "<&>", "\u2028", "\x01\b\t"})
	want := `["dev","a\"b\\c","<&>","` + "\u2028" + `","\u0001\b\t"]`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestJSNumberFromString(t *testing.T) {
	tests := map[string]string{
		"": "0", " 12 ": "12", "0x10": "16", "0X1F": "31", "0b11": "3", "0o7": "7", "1_0": "NaN",
		"Infinity": "Infinity", "-Infinity": "-Infinity", "inf": "NaN", "1e": "NaN", "-0x10": "NaN",
		".5": "0.5", "5.": "5", "+.5": "0.5", "\u00a012\ufeff": "12", "\u0085 1": "NaN", "1e400": "Infinity", "0.30": "0.3",
	}
	for in, want := range tests {
		if got := formatJSNumber(jsNumberFromString(in)); got != want {
			t.Errorf("Number(%q) = %s, want %s", in, got, want)
		}
	}
}
