package knowledge

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// maxFileSize bounds what the index reads from one file.
const maxFileSize = 16 << 20

// readJob is one file the refresh has to (re)read.
type readJob struct {
	sess *sessionEntry
	name string // "" for session.json
	path string

	data   []byte
	parsed *rawStep
	stamp  fileStamp
	err    error
}

// refresh brings the index up to date with the files under root: on the
// first call it reads every file once; later it stats each session's
// session.json and steps directory and reads only new or changed files.
// The caller holds s.mu.
func (s *Store) refresh(ctx context.Context) error {
	ix := s.ix
	if s.root == "" {
		return nil // a view: it holds what was added
	}
	fi, err := os.Stat(s.root)
	if errors.Is(err, fs.ErrNotExist) {
		ix.sessions = map[string]*sessionEntry{}
		ix.root = dirStamp{}
		ix.built = true
		return nil
	}
	if err != nil {
		return knowledgeErr("read knowledge root", err)
	}
	if !ix.root.fresh(fi.ModTime()) {
		listedAt := time.Now()
		entries, err := os.ReadDir(s.root)
		if err != nil {
			return knowledgeErr("list knowledge root", err)
		}
		seen := make(map[string]bool, len(entries))
		for _, e := range entries {
			// Only real directories with a valid id: a symlink or an odd
			// name never leads the store outside its root.
			if e.IsDir() && ValidSessionID(e.Name()) {
				seen[e.Name()] = true
				ix.session(e.Name())
			}
		}
		for id := range ix.sessions {
			if !seen[id] {
				delete(ix.sessions, id)
			}
		}
		ix.root = dirStamp{mtime: fi.ModTime(), listedAt: listedAt}
	}

	var jobs []*readJob
	n := 0
	for _, se := range ix.sessions {
		if n++; n%64 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		jobs = s.scanSession(se, jobs)
	}
	if len(jobs) > 0 {
		if err := readAll(ctx, jobs); err != nil {
			// Forget what was listed so the next query reads it again.
			for _, j := range jobs {
				j.sess.steps, j.sess.metaSeen = dirStamp{}, fileStamp{}
			}
			return err
		}
		for _, j := range jobs {
			s.apply(j)
		}
		s.reads += len(jobs)
	}
	ix.built = true
	return nil
}

// scanSession stats one session and appends the files to read.
func (s *Store) scanSession(se *sessionEntry, jobs []*readJob) []*readJob {
	dir := filepath.Join(s.root, se.id)
	metaPath := filepath.Join(dir, "session.json")
	if fi, err := os.Lstat(metaPath); err == nil && fi.Mode().IsRegular() {
		if st := (fileStamp{fi.ModTime(), fi.Size()}); st != se.metaSeen {
			jobs = append(jobs, &readJob{sess: se, path: metaPath})
		}
	} else if se.meta != nil || se.metaBad {
		se.setMeta(nil)
		se.metaSeen = fileStamp{}
	}

	stepsDir := filepath.Join(dir, "steps")
	fi, err := os.Stat(stepsDir)
	if err != nil || !fi.IsDir() {
		for name := range se.files {
			se.removeFile(name)
		}
		se.steps = dirStamp{}
		return jobs
	}
	if se.steps.fresh(fi.ModTime()) {
		return jobs
	}
	listedAt := time.Now()
	entries, err := os.ReadDir(stepsDir)
	if err != nil {
		s.log.Warn("cannot list steps", "session", se.id, "error", err)
		return jobs
	}
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		seen[name] = true
		fe := se.files[name]
		if fe != nil && fe.step != nil {
			continue // step files are written once
		}
		if fe != nil {
			// A skipped file: retry only when it changed (a foreign
			// writer may have been caught half-way).
			info, err := e.Info()
			if err != nil || (fileStamp{info.ModTime(), info.Size()}) == fe.stamp {
				continue
			}
		}
		jobs = append(jobs, &readJob{sess: se, name: name, path: filepath.Join(stepsDir, name)})
	}
	for name := range se.files {
		if !seen[name] {
			se.removeFile(name)
		}
	}
	se.steps = dirStamp{mtime: fi.ModTime(), listedAt: listedAt}
	return jobs
}

// readAll reads the jobs' files on all cores.
func readAll(ctx context.Context, jobs []*readJob) error {
	workers := min(runtime.GOMAXPROCS(0), len(jobs))
	next := make(chan *readJob)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var buf []byte // reused: the decoder copies what it keeps
			for j := range next {
				if j.name == "" {
					j.data, j.stamp, j.err = readFile(j.path, nil)
					continue
				}
				// Parse here too: decoding is the expensive part.
				buf, j.stamp, j.err = readFile(j.path, buf)
				if j.err == nil {
					j.parsed, j.err = parseStep(buf)
				}
			}
		})
	}
	var err error
	for _, j := range jobs {
		if err = ctx.Err(); err != nil {
			break
		}
		next <- j
	}
	close(next)
	wg.Wait()
	return err
}

// readFile reads path into buf (grown as needed) with one read call.
func readFile(path string, buf []byte) ([]byte, fileStamp, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileStamp{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fileStamp{}, err
	}
	st := fileStamp{fi.ModTime(), fi.Size()}
	if !fi.Mode().IsRegular() || fi.Size() > maxFileSize {
		return nil, st, errors.New("not a regular file of a sane size")
	}
	// One read of the known size (plus one byte to notice growth).
	if need := int(fi.Size()) + 1; cap(buf) < need {
		buf = make([]byte, need)
	}
	b := buf[:fi.Size()+1]
	n, err := io.ReadFull(f, b)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return b[:n], st, err
}

// apply folds one read file into the index.
func (s *Store) apply(j *readJob) {
	se := j.sess
	if j.name == "" {
		se.metaSeen = j.stamp
		var m *SessionMeta
		err := j.err
		if err == nil {
			m, err = parseMeta(j.data)
		}
		if err != nil {
			s.log.Debug("skipping session.json", "session", se.id, "error", err)
			se.setMeta(nil)
			se.metaBad = true
			return
		}
		se.setMeta(m)
		return
	}
	if j.err != nil || j.parsed == nil {
		s.log.Debug("skipping step file", "session", se.id, "file", j.name, "error", j.err)
		se.removeFile(j.name)
		se.files[j.name] = &fileEntry{stamp: j.stamp}
		return
	}
	s.ix.addStep(se, j.name, j.parsed, j.stamp)
}
