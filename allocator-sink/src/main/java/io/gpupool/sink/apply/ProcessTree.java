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
 * children that were re-parented when their parent died.
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

    private ProcessTree() {
    }

    public static Ending stop(final ProcessHandle root, final Duration grace) throws InterruptedException {
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
        tree.forEach(ProcessHandle::destroyForcibly); // SIGKILL
        awaitAll(tree, KILL_WAIT);
        return Ending.KILLED;
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
