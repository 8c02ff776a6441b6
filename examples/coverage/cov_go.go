// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause

// The coverage workload with Go's sync.Mutex, as cov_workload.c does it in
// C: a "ui" thread (nice -10, 120 Hz, L twice a frame), two "bg" threads
// (nice 19, hold L for 0.5-1.5 ms of CPU), four "hog" threads (nice 0).
// `PROG [SECONDS [RECORD_FILE]]`. Go names no OS thread per goroutine:
// each goroutine locks itself to its OS thread and names that thread with
// prctl(PR_SET_NAME), so `superpass run -c ui` and the kernel see "ui".
// GOMAXPROCS is raised above the thread count so that the kernel, not Go's
// scheduler, decides who runs (as nice values do for the other programs).
// The clock is CLOCK_MONOTONIC through the raw system call (Go's time
// package hides its raw reading), the clock of superpass's actuator log.
package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

const periodNs = 8333333

func now(clk uintptr) uint64 {
	var ts syscall.Timespec
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clk, uintptr(unsafe.Pointer(&ts)), 0)
	return uint64(ts.Sec)*1000000000 + uint64(ts.Nsec)
}

const (
	clockMonotonic = 1
	clockThreadCPU = 3
)

func burn(ns uint64) {
	t0 := now(clockThreadCPU)
	for now(clockThreadCPU)-t0 < ns {
	}
}

// setup pins the calling goroutine to its OS thread, names the thread and
// sets its nice value; returns the tid.
func setup(name string, nice int) int {
	runtime.LockOSThread()
	b := append([]byte(name), 0)
	syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_NAME, uintptr(unsafe.Pointer(&b[0])), 0)
	tid := syscall.Gettid()
	if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, nice); err != nil {
		fmt.Fprintf(os.Stderr, "%s: cannot set nice %d (not root?): the inversion will be weaker\n", name, nice)
	}
	return tid
}

type span struct{ s, e uint64 }

type log struct {
	tid   int
	spans []span // preallocated: appends within capacity only
}

func (l *log) note(s, e uint64) {
	if len(l.spans) < cap(l.spans) {
		l.spans = append(l.spans, span{s, e})
	}
}

func main() {
	seconds := 8.0
	if len(os.Args) > 1 {
		v, err := strconv.ParseFloat(os.Args[1], 64)
		if err != nil || v <= 0 || v > 3600 {
			fmt.Fprintf(os.Stderr, "usage: %s [SECONDS [RECORD_FILE]]\n", os.Args[0])
			os.Exit(2)
		}
		seconds = v
	}
	runtime.GOMAXPROCS(16)
	var l sync.Mutex
	var stop int32
	var wg sync.WaitGroup
	frames := int(seconds*120) + 16
	logs := []*log{
		{spans: make([]span, 0, 2*frames)},
		{spans: make([]span, 0, int(seconds*2000)+16)},
		{spans: make([]span, 0, int(seconds*2000)+16)},
	}
	waits := &log{spans: make([]span, 0, 2*frames)}
	for i := 1; i <= 2; i++ {
		wg.Add(1)
		go func(lg *log, seed uint32) {
			defer wg.Done()
			lg.tid = setup("bg", 19)
			for atomic.LoadInt32(&stop) == 0 {
				seed = seed*1103515245 + 12345
				l.Lock()
				t1 := now(clockMonotonic)
				burn(500000 + uint64((seed>>8)%1000000))
				t2 := now(clockMonotonic)
				l.Unlock()
				lg.note(t1, t2)
				time.Sleep(500 * time.Microsecond)
			}
		}(logs[i], uint32(i)*2654435761)
	}
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			setup("hog", 0)
			for atomic.LoadInt32(&stop) == 0 {
				burn(1000000)
			}
		}()
	}
	var longest uint64
	done := make(chan struct{})
	go func() {
		tid := setup("ui", -10)
		logs[0].tid, waits.tid = tid, tid
		next := now(clockMonotonic)
		end := next + uint64(seconds*1e9)
		for next < end {
			for i := 0; i < 2; i++ {
				t0 := now(clockMonotonic)
				l.Lock()
				t1 := now(clockMonotonic)
				burn(20000)
				t2 := now(clockMonotonic)
				l.Unlock()
				waits.note(t0, t1)
				logs[0].note(t1, t2)
				if t1-t0 > longest {
					longest = t1 - t0
				}
				if i == 0 {
					burn(500000)
				}
			}
			next += periodNs
			if t := now(clockMonotonic); next < t {
				next = t
			} else {
				time.Sleep(time.Duration(next - t))
			}
		}
		atomic.StoreInt32(&stop, 1)
		close(done)
	}()
	<-done
	wg.Wait()
	fmt.Printf("ui: longest_wait_ms=%.3f waits=%d impl=go_mutex\n", float64(longest)/1e6, len(waits.spans))
	if len(os.Args) > 2 {
		f, err := os.Create(os.Args[2])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		w := bufio.NewWriter(f)
		fmt.Fprintf(w, "pid %d\nimpl go_mutex\n", os.Getpid())
		for _, lg := range logs {
			for _, s := range lg.spans {
				fmt.Fprintf(w, "hold %d %d %d\n", lg.tid, s.s, s.e)
			}
		}
		for _, s := range waits.spans {
			fmt.Fprintf(w, "wait %d %d %d\n", waits.tid, s.s, s.e)
		}
		w.Flush()
		f.Close()
	}
}
