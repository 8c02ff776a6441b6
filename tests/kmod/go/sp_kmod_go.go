// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause

// The QEMU test's "go" scenario (tests/kmod/run-qemu-test.sh): the futex
// scenario of sp_kmod_workload.c with Go's sync.Mutex, which waits through
// raw futex system calls of the runtime (no libc, so no interposer): a
// waiting goroutine locked to its thread parks that thread on the thread's
// own futex word, and whoever hands it the lock wakes that word.
//
// A critical goroutine (its own thread, nice -10) runs 120 Hz frames taking
// the mutex twice a frame; 2 nice-19 threads hold it for 0.5-1.5 ms of
// their CPU time, then sleep 2 ms; 4 nice-0 hogs spin. Every goroutine is
// locked to its own thread and GOMAXPROCS leaves each a P, so that the
// kernel, not Go's scheduler, decides who runs. Prints the same "SPW" and
// "SPW_CHECK" lines as sp_kmod_workload.c. Built static by the test script
// (CGO_ENABLED=0 go build).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

const (
	nrHogs     = 4
	nrHolders  = 2
	frame      = 8333333 * time.Nanosecond
	holdMinNs  = 500000
	holdSpanNs = 1000000
)

var (
	mu         sync.Mutex
	stopAll    atomic.Bool
	stopCrit   atomic.Bool
	hogIters   [nrHogs]atomic.Uint64
	holderTids [nrHolders]atomic.Int32
	holderWork atomic.Uint64
	critTid    atomic.Int32
	failures   int
	withModule bool
	samplesMu  sync.Mutex
	samples    []time.Duration
	sink       uint64
)

func check(name string, ok bool, format string, a ...interface{}) {
	res := "PASS"
	if !ok {
		res = "FAIL"
		failures++
	}
	fmt.Printf("SPW_CHECK %s %s %s\n", name, res, fmt.Sprintf(format, a...))
}

// setSelf names the calling thread and sets its nice value.
func setSelf(name string, nice int) int {
	b := append([]byte(name), 0)
	syscall.RawSyscall(syscall.SYS_PRCTL, 15 /* PR_SET_NAME */, uintptr(unsafe.Pointer(&b[0])), 0)
	tid := syscall.Gettid()
	syscall.Setpriority(syscall.PRIO_PROCESS, tid, nice)
	return tid
}

func cpuNs() int64 {
	var ts syscall.Timespec
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, 3 /* CLOCK_THREAD_CPUTIME_ID */, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

func hog(i int) {
	runtime.LockOSThread()
	setSelf("sp-hog", 0)
	for !stopAll.Load() {
		for k := 0; k < 10000; k++ {
			sink++
		}
		hogIters[i].Add(1)
	}
}

func holder(i int) {
	runtime.LockOSThread()
	holderTids[i].Store(int32(setSelf("sp-holder", 19)))
	seed := uint32(i + 1)
	for !stopAll.Load() {
		mu.Lock()
		seed = seed*1103515245 + 12345
		end := cpuNs() + holdMinNs + int64(seed>>8)%holdSpanNs
		for cpuNs() < end {
		}
		mu.Unlock()
		holderWork.Add(1)
		time.Sleep(2 * time.Millisecond)
	}
}

func writeFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString(text)
	return err
}

func listsTid(tid int) bool {
	f, err := os.Open("/proc/superpass/critical")
	if err != nil {
		return false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if n, _ := strconv.Atoi(strings.TrimSpace(s.Text())); n == tid {
			return true
		}
	}
	return false
}

// crit runs frames until told to stop; its thread exits with it (a
// goroutine that ends locked to its thread takes the thread along).
func crit(record bool, done chan<- struct{}) {
	runtime.LockOSThread()
	tid := setSelf("sp-crit", -10)
	critTid.Store(int32(tid))
	if withModule {
		check("mark_critical", writeFile("/proc/superpass/critical", fmt.Sprintf("%d\n", tid)) == nil, "tid %d", tid)
	}
	next := time.Now()
	for !stopCrit.Load() {
		for i := 0; i < 2; i++ {
			t0 := time.Now()
			mu.Lock()
			w := time.Since(t0)
			for k := 0; k < 2000; k++ {
				sink++
			}
			mu.Unlock()
			if record {
				samplesMu.Lock()
				samples = append(samples, w)
				samplesMu.Unlock()
			}
		}
		next = next.Add(frame)
		if d := time.Until(next); d > 0 {
			time.Sleep(d)
		} else {
			next = time.Now()
		}
	}
	close(done)
}

func schedPolicy(tid int) int {
	r, _, e := syscall.RawSyscall(syscall.SYS_SCHED_GETSCHEDULER, uintptr(tid), 0, 0)
	if e != 0 {
		return -1
	}
	return int(r)
}

func holdersRestored(wait time.Duration) (bool, string) {
	deadline := time.Now().Add(wait)
	for {
		ok, why := true, ""
		for i := range holderTids {
			tid := int(holderTids[i].Load())
			pol := schedPolicy(tid)
			prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
			nice := 20 - prio // the raw system call's 1..40
			if pol != 0 || err != nil || nice != 19 {
				ok, why = false, fmt.Sprintf("tid %d policy %d nice %d", tid, pol, nice)
			}
		}
		if ok || time.Now().After(deadline) {
			return ok, why
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func pct(s []time.Duration, q float64) float64 {
	if len(s) == 0 {
		return 0
	}
	return float64(s[int(q*float64(len(s)-1)+0.5)]) / 1e3
}

func main() {
	seconds := flag.Int("seconds", 6, "measured seconds")
	flag.BoolVar(&withModule, "module", false, "mark the critical thread, check and unload")
	noMark := flag.Bool("no-mark", false, "with --module: mark nothing")
	flag.String("scenario", "go", "only go")
	flag.Int("trace-long", 0, "accepted for the test script, ignored")
	flag.Parse()
	if *noMark {
		withModule = false
	}
	runtime.GOMAXPROCS(nrHogs + nrHolders + 4)
	fmt.Printf("SPW scenario go module %v seconds %d\n", withModule, *seconds)
	for i := 0; i < nrHolders; i++ {
		go holder(i)
	}
	for i := 0; i < nrHogs; i++ {
		go hog(i)
	}
	for holderTids[0].Load() == 0 || holderTids[nrHolders-1].Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	for i := range holderTids {
		fmt.Printf("SPW holder_tid %d\n", holderTids[i].Load())
	}
	hogSum := func() (s uint64) {
		for i := range hogIters {
			s += hogIters[i].Load()
		}
		return
	}
	t0, h0, w0 := time.Now(), hogSum(), holderWork.Load()
	done := make(chan struct{})
	go crit(true, done)
	time.Sleep(time.Duration(*seconds) * time.Second)
	stopCrit.Store(true)
	<-done
	el, h1, w1 := time.Since(t0), hogSum(), holderWork.Load()
	fmt.Printf("SPW crit_tid %d\n", critTid.Load())
	samplesMu.Lock()
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	fmt.Printf("SPW ops %d\n", len(samples))
	fmt.Printf("SPW p50_us %.1f\n", pct(samples, 0.50))
	fmt.Printf("SPW p99_us %.1f\n", pct(samples, 0.99))
	fmt.Printf("SPW p999_us %.1f\n", pct(samples, 0.999))
	if len(samples) > 0 {
		fmt.Printf("SPW max_us %.1f\n", float64(samples[len(samples)-1])/1e3)
	} else {
		fmt.Printf("SPW max_us 0\n")
	}
	samplesMu.Unlock()
	if withModule {
		tid := int(critTid.Load())
		gone := false
		for w := 0; w < 100; w++ {
			if !listsTid(tid) {
				gone = true
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		check("critical_dropped_on_exit", gone, "tid %d", tid)
		ok, why := holdersRestored(3 * time.Second)
		check("restored_after_run", ok, "%s", why)
		if f, err := os.Open("/proc/superpass/stats"); err == nil {
			s := bufio.NewScanner(f)
			for s.Scan() {
				fmt.Printf("SPW_STATS %s\n", s.Text())
			}
			f.Close()
		}
		// Again, and unload the module while the inversion is live.
		stopCrit.Store(false)
		done = make(chan struct{})
		go crit(false, done)
		time.Sleep(1500 * time.Millisecond)
		name := append([]byte("superpass"), 0)
		_, _, e := syscall.Syscall(syscall.SYS_DELETE_MODULE, uintptr(unsafe.Pointer(&name[0])), syscall.O_NONBLOCK, 0)
		check("rmmod_under_load", e == 0, "errno %d", int(e))
		stopCrit.Store(true)
		<-done
		ok, why = holdersRestored(0)
		check("restored_after_rmmod", ok, "%s", why)
	}
	stopAll.Store(true)
	fmt.Printf("SPW hog_iters_per_s %.0f\n", float64(h1-h0)/el.Seconds())
	fmt.Printf("SPW holder_work_per_s %.0f\n", float64(w1-w0)/el.Seconds())
	fmt.Printf("SPW measured_s %.2f\n", el.Seconds())
	fmt.Printf("SPW failures %d\n", failures)
	if failures > 0 {
		os.Exit(1)
	}
}
