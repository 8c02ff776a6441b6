// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
import java.io.BufferedWriter;
import java.io.FileWriter;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The coverage workload with Java's synchronized (a JVM monitor), as
 * cov_workload.c does it in C: a "ui" thread (nice -10, 120 Hz, L twice a
 * frame), two "bg" threads (nice 19, hold L for 0.5-1.5 ms of CPU), four
 * "hog" threads (nice 0). {@code java -cp DIR CovJava [SECONDS [RECORD_FILE]]}.
 * OpenJDK 17 gives each thread its Java name as its OS thread name when it
 * starts, so {@code superpass run -c ui} finds the ui. Java has no per
 * thread nice: each thread reads its tid from /proc/thread-self and runs
 * renice(1) on it. System.nanoTime() is CLOCK_MONOTONIC on Linux, the
 * clock of superpass's actuator log.
 */
public final class CovJava {
    private static final Object L = new Object();
    private static final AtomicBoolean STOP = new AtomicBoolean();
    private static final long PERIOD_NS = 8333333L;
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

    /** One thread's record: preallocated, written at exit. */
    private static final class Log {
        long tid;
        final long[] s, e;
        int n;

        Log(int cap) {
            s = new long[cap];
            e = new long[cap];
        }

        void note(long a, long b) {
            if (n < s.length) {
                s[n] = a;
                e[n] = b;
                n++;
            }
        }
    }

    private static void burn(long ns) {
        long t0 = CPU.getCurrentThreadCpuTime();
        while (CPU.getCurrentThreadCpuTime() - t0 < ns) {
            /* CPU work */
        }
    }

    private static long setup(String name, int nice) {
        long tid = -1;
        try {
            String link = Files.readSymbolicLink(Paths.get("/proc/thread-self")).toString();
            tid = Long.parseLong(link.substring(link.lastIndexOf('/') + 1));
            Process p = new ProcessBuilder("renice", "-n", Integer.toString(nice), "-p",
                    Long.toString(tid)).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (p.waitFor() != 0) {
                throw new IOException("renice failed");
            }
        } catch (IOException | InterruptedException | RuntimeException ex) {
            System.err.println(name + ": cannot set nice " + nice + " (" + ex.getMessage()
                    + "): the inversion will be weaker");
        }
        return tid;
    }

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 8.0;
        if (!(seconds > 0 && seconds <= 3600)) {
            System.err.println("usage: CovJava [SECONDS [RECORD_FILE]]");
            System.exit(2);
        }
        int frames = (int) (seconds * 120) + 16;
        Log[] holds = {new Log(2 * frames), new Log((int) (seconds * 2000) + 16),
            new Log((int) (seconds * 2000) + 16)};
        Log waits = new Log(2 * frames);
        long[] longest = {0};
        Thread[] bg = new Thread[2];
        Thread[] hogs = new Thread[4];
        for (int i = 0; i < 2; i++) {
            final Log lg = holds[1 + i];
            final int first = (i + 1) * (int) 2654435761L;
            bg[i] = new Thread(() -> {
                lg.tid = setup("bg", 19);
                int seed = first;
                while (!STOP.get()) {
                    seed = seed * 1103515245 + 12345;
                    long hold = 500000 + Integer.toUnsignedLong(seed >>> 8) % 1000000;
                    long t1, t2;
                    synchronized (L) {
                        t1 = System.nanoTime();
                        burn(hold);
                        t2 = System.nanoTime();
                    }
                    lg.note(t1, t2);
                    try {
                        Thread.sleep(0, 500000);
                    } catch (InterruptedException ex) {
                        return;
                    }
                }
            }, "bg");
            bg[i].start();
        }
        for (int i = 0; i < 4; i++) {
            hogs[i] = new Thread(() -> {
                setup("hog", 0);
                while (!STOP.get()) {
                    burn(1000000);
                }
            }, "hog");
            hogs[i].start();
        }
        Thread ui = new Thread(() -> {
            long tid = setup("ui", -10);
            holds[0].tid = tid;
            waits.tid = tid;
            long next = System.nanoTime();
            long end = next + (long) (seconds * 1e9);
            while (next < end) {
                for (int i = 0; i < 2; i++) {
                    long t0 = System.nanoTime(), t1, t2;
                    synchronized (L) {
                        t1 = System.nanoTime();
                        burn(20000);
                        t2 = System.nanoTime();
                    }
                    waits.note(t0, t1);
                    holds[0].note(t1, t2);
                    longest[0] = Math.max(longest[0], t1 - t0);
                    if (i == 0) {
                        burn(500000);
                    }
                }
                next += PERIOD_NS;
                long t = System.nanoTime();
                if (next < t) {
                    next = t;
                } else {
                    try {
                        Thread.sleep((next - t) / 1000000, (int) ((next - t) % 1000000));
                    } catch (InterruptedException ex) {
                        break;
                    }
                }
            }
            STOP.set(true);
        }, "ui");
        ui.start();
        ui.join();
        for (Thread t : bg) {
            t.join();
        }
        for (Thread t : hogs) {
            t.join();
        }
        System.out.printf("ui: longest_wait_ms=%.3f waits=%d impl=java_synchronized%n",
                longest[0] / 1e6, waits.n);
        if (args.length > 1) {
            try (BufferedWriter w = new BufferedWriter(new FileWriter(args[1]))) {
                w.write("pid " + ProcessHandle.current().pid() + "\nimpl java_synchronized\n");
                for (Log lg : holds) {
                    for (int j = 0; j < lg.n; j++) {
                        w.write("hold " + lg.tid + " " + lg.s[j] + " " + lg.e[j] + "\n");
                    }
                }
                for (int j = 0; j < waits.n; j++) {
                    w.write("wait " + waits.tid + " " + waits.s[j] + " " + waits.e[j] + "\n");
                }
            }
        }
    }
}
