package build

import (
	"bufio"
	"errors"
	"io"
)

// maxLine bounds the part of one output line that is kept; the rest of a
// longer line is read and dropped, so one huge line (a minified bundle
// printed whole) stops nothing.
const maxLine = 64 << 10

// eachLine calls fn with every line of r (without its newline, cut to
// maxLine bytes) until r ends.
func eachLine(r io.Reader, fn func(string)) {
	br := bufio.NewReaderSize(r, maxLine)
	for {
		chunk, err := br.ReadSlice('\n')
		line := string(chunk)
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: keep its start, drop the rest.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			line += " …"
		}
		if n := len(line); n > 0 && line[n-1] == '\n' {
			line = line[:n-1]
		}
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if line != "" || err == nil {
			fn(line)
		}
		if err != nil {
			return
		}
	}
}
