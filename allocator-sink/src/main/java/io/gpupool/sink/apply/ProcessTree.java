package io.gpupool.sink.apply;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Stops a process and everything it started: SIGTERM to the whole tree (so a shell waiting on a
 * child gets to run its trap), a grace period, then SIGKILL to whatever is left, including
 * children that were re-parented when their parent died. A process still alive after the kill
 * wait (e.g. in uninterruptible sleep after a GPU Xid) is not stopped: {@link #stop} throws
 * {@link StillRunningException}, naming the survivors, which {@link #kill} can try again.
 */
public final class ProcessTree {

    /** What stopping took. */
    public enum Ending {
        /** Nothing was running. */
        NOT_RUNNING,
        /** Everything ended within the grace period after SIGTERM. */
        TERMINATED,
        /** Something was still alive after the grace period and got SIGKILL. */
        KILLED
    }

    /** How long {@link #stop} waits for the tree to die after SIGKILL. */
    public static final Duration KILL_WAIT = Duration.ofSeconds(10);
    private static final long POLL_MILLIS = 20;

    /** Processes of the tree that outlived SIGKILL and the kill wait: the tree is not stopped. */
    public static final class StillRunningException extends IOException {
        private static final long serialVersionUID = 1L;
        private final transient Set<ProcessHandle> survivors;

        StillRunningException(final Set<ProcessHandle> survivors) {
            super("process(es) " + survivors.stream().map(ProcessHandle::pid).toList() + " still alive "
                    + KILL_WAIT.toMillis() + " ms after SIGKILL");
            this.survivors = Set.copyOf(survivors);
        }

        public Set<ProcessHandle> survivors() {
            return survivors;
        }
    }

    private ProcessTree() {
    }

    /**
     * Stops the tree; returns once every process of it is gone.
     *
     * @throws StillRunningException when processes outlive SIGKILL and {@link #KILL_WAIT}
     */
    public static Ending stop(final ProcessHandle root, final Duration grace)
            throws InterruptedException, StillRunningException {
        if (!alive(root)) {
            return Ending.NOT_RUNNING;
        }
        // Remembered now: once the root dies its children are re-parented and no longer its descendants.
        final Set<ProcessHandle> tree = tree(root);
        tree.forEach(ProcessHandle::destroy); // SIGTERM on Unix
        if (awaitAll(tree, grace)) {
            return Ending.TERMINATED;
        }
        tree.addAll(tree(root)); // children started during the grace period
        for (final ProcessHandle p : Set.copyOf(tree)) {
            tree.addAll(p.descendants().toList());
        }
        kill(tree);
        return Ending.KILLED;
    }

    /**
     * SIGKILLs these processes (and what they started) and waits {@link #KILL_WAIT} for them to die.
     *
     * @throws StillRunningException naming the processes still alive then
     */
    public static void kill(final Set<ProcessHandle> processes) throws InterruptedException, StillRunningException {
        final Set<ProcessHandle> tree = new LinkedHashSet<>(processes);
        for (final ProcessHandle p : Set.copyOf(tree)) {
            tree.addAll(p.descendants().toList());
        }
        tree.forEach(ProcessHandle::destroyForcibly); // SIGKILL
        if (!awaitAll(tree, KILL_WAIT)) {
            final Set<ProcessHandle> alive = new LinkedHashSet<>();
            tree.stream().filter(ProcessTree::alive).forEach(alive::add);
            if (!alive.isEmpty()) {
                throw new StillRunningException(alive);
            }
        }
    }

    private static Set<ProcessHandle> tree(final ProcessHandle root) {
        final Set<ProcessHandle> all = new LinkedHashSet<>();
        all.add(root);
        root.descendants().forEach(all::add);
        return all;
    }

    private static boolean awaitAll(final Set<ProcessHandle> processes, final Duration timeout)
            throws InterruptedException {
        // Polled rather than onExit(): a re-parented grandchild is not ours to wait for, and may
        // linger as a zombie where nothing reaps it, which isAlive() still counts as alive.
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (processes.stream().anyMatch(ProcessTree::alive)) {
            if (System.nanoTime() >= deadline) {
                return false;
            }
            Thread.sleep(POLL_MILLIS);
        }
        return true;
    }

    /** Alive and not a zombie: a zombie has exited, only its exit status is left to collect. */
    public static boolean alive(final ProcessHandle p) {
        if (!p.isAlive()) {
            return false;
        }
        try {
            final String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
            final int close = stat.lastIndexOf(')');
            return close < 0 || close + 2 >= stat.length() || stat.charAt(close + 2) != 'Z';
        } catch (final IOException e) {
            return p.isAlive(); // no /proc (not Linux) or just exited
        }
    }
}
