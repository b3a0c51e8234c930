package kcpref

// ASCII tests and lower-casing eight bytes at a time. For a word x whose
// bytes are all below 0x80, x + 0x3f… sets a byte's top bit exactly when
// the byte is at least 'A', and x + 0x25… when it is above 'Z', with no
// carry between bytes: their difference marks the capitals.
const (
	highBits  = 0x8080808080808080
	addA      = 0x3f3f3f3f3f3f3f3f // 0x80 − 'A'
	addPastZ  = 0x2525252525252525 // 0x80 − ('Z' + 1)
	wordBytes = 8
)

// load64 is the little-endian word of s[i:i+8].
func load64(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// capitals marks with 0x80 each byte of x in 'A'..'Z' (x all ASCII).
func capitals(x uint64) uint64 { return (x + addA) &^ (x + addPastZ) & highBits }

// asciiCase reports whether s is ASCII, and whether it has a capital.
func asciiCase(s string) (ascii, upper bool) {
	var hi, up uint64
	i := 0
	for ; i+wordBytes <= len(s); i += wordBytes {
		x := load64(s, i)
		hi |= x
		up |= capitals(x &^ highBits) // garbage only where hi is set
	}
	for ; i < len(s); i++ {
		c := s[i]
		hi |= uint64(c)
		if 'A' <= c && c <= 'Z' {
			up = highBits
		}
	}
	if hi&highBits != 0 {
		return false, false
	}
	return true, up != 0
}

func isASCII(s string) bool {
	ascii, _ := asciiCase(s)
	return ascii
}

func isLowerASCII(s string) bool {
	ascii, upper := asciiCase(s)
	return ascii && !upper
}

// appendLowerASCII appends s, which is ASCII, lower-cased.
func appendLowerASCII(buf []byte, s string) []byte {
	i := 0
	for ; i+wordBytes <= len(s); i += wordBytes {
		x := load64(s, i)
		x |= capitals(x) >> 2 // 0x80 >> 2 is the case bit 0x20
		buf = append(buf, byte(x), byte(x>>8), byte(x>>16), byte(x>>24), byte(x>>32), byte(x>>40), byte(x>>48), byte(x>>56))
	}
	for ; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return buf
}
