package io.gpupool.sink.apply;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each part as a real process built from a {@link CommandTemplate}, with GPUPOOL_JOB_ID,
 * GPUPOOL_NODE, CUDA_VISIBLE_DEVICES, GPUPOOL_GPU_UUIDS and the job's env; its output goes to
 * {@code LOGDIR/JOB_NODE.log} ({@link #logFile}). The process's exit is the part's end. Stopping
 * sends SIGTERM to its tree, waits the grace period, then SIGKILLs what is left.
 */
public final class ExecApplier implements Applier {

    private static final Logger LOG = LoggerFactory.getLogger(ExecApplier.class);
    /**
     * Run before each job when present: it puts the job in its own session, so a Ctrl-C in the
     * sink's terminal (SIGINT to the whole foreground group) does not kill the jobs, which a
     * restarted sink adopts. It exec()s the job in place, so the pid stays the job's.
     */
    private static final Path SETSID = Path.of("/usr/bin/setsid");
    private static final long ADOPTED_POLL_MILLIS = 500;
    /** A recorded pid is the same process only if it started within this of the recorded start. */
    private static final long START_TOLERANCE_MILLIS = 2_000;
    /** How long a stop waits for a stopped child's exit code. */
    private static final Duration EXIT_CODE_WAIT = Duration.ofSeconds(1);

    private final CommandTemplate template;
    private final Duration grace;
    private final Path logDir;
    /** Keyed by the ALLOCATE command id: a re-placed job never collides with its previous run. */
    private final Map<String, Tracked> running = new ConcurrentHashMap<>();
    private final ScheduledExecutorService adoptedWatch = Executors.newSingleThreadScheduledExecutor(r -> {
        final Thread t = new Thread(r, "sink-exec-adopted");
        t.setDaemon(true);
        return t;
    });

    /**
     * A running part's process; {@code process} is empty for one adopted after a restart (not our
     * child); {@code stopping}: a stop has begun (its exit no longer ends the part: the stop reports
     * it); {@code survivors}: what outlived the SIGKILL of a stop that failed, to kill again.
     */
    private record Tracked(ProcessHandle handle, Optional<Process> process, boolean stopping,
                           Set<ProcessHandle> survivors) {
        Tracked(final ProcessHandle handle, final Optional<Process> process) {
            this(handle, process, false, Set.of());
        }
    }

    /** Where the output of a job's part on a node goes (what {@code gpupool logs} reads). */
    public static Path logFile(final Path logDir, final String jobId, final String nodeId) {
        return logDir.resolve(AllocationFile.fileName(jobId + "@" + nodeId).replaceFirst("\\.json$", ".log"));
    }

    public ExecApplier(final CommandTemplate template, final Duration grace, final Path logDir) {
        this.template = template;
        this.grace = grace;
        this.logDir = logDir;
    }

    @Override
    public String name() {
        return "exec";
    }

    /** The process of a running part, if any. */
    public Optional<ProcessHandle> processOf(final JobPart part) {
        return Optional.ofNullable(running.get(part.commandId())).map(Tracked::handle);
    }

    @Override
    public void allocate(final JobPart part, final PartObserver observer) throws IOException {
        final List<String> argv = template.argv(part);
        final List<String> command = new ArrayList<>();
        if (Files.isExecutable(SETSID)) {
            command.add(SETSID.toString());
            // setsid would report a missing program only as exit code 127: check it here, so it is
            // an error to retry and report as such, as without setsid.
            requireProgram(argv.get(0), part.env().getOrDefault("PATH", System.getenv("PATH")));
        }
        command.addAll(argv);
        final ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(ExecEnvironment.of(part));
        part.workingDir().ifPresent(d -> pb.directory(new File(d)));
        Files.createDirectories(logDir);
        final File log = logFile(logDir, part.jobId(), part.nodeId()).toFile();
        pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log));
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        final Process process = pb.start(); // IOException (no such program) -> retried, then FAILED
        final Tracked tracked = new Tracked(process.toHandle(), Optional.of(process));
        running.put(part.commandId(), tracked);
        LOG.info("started {} as pid {}: {}", part.key(), process.pid(), argv);
        observer.started(part, process.pid());
        process.onExit().thenAccept(p -> {
            // Only a part still registered ends here; a stopped part was settled by stop().
            if (running.remove(part.commandId(), tracked)) {
                observer.ended(part, Outcome.exited(p.exitValue()));
            }
        });
    }

    private static void requireProgram(final String program, final String path) throws IOException {
        if (program.contains("/")) {
            if (!Files.isExecutable(Path.of(program))) {
                throw new IOException("cannot run program \"" + program + "\": no such executable file");
            }
            return;
        }
        for (final String dir : (path == null ? "" : path).split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return;
            }
        }
        throw new IOException("cannot run program \"" + program + "\": not found in PATH " + path);
    }

    /**
     * Stops the part's process tree. The part stays tracked until that succeeded: a stop that threw
     * (processes outlived SIGKILL) is tried again by the next call, which SIGKILLs the survivors
     * again instead of reporting the part stopped.
     */
    @Override
    public Optional<Outcome> stop(final JobPart part, final String reason) throws InterruptedException, IOException {
        final Tracked found = running.get(part.commandId());
        if (found == null) {
            return Optional.empty();
        }
        // Marked, so that the exit our signal causes does not take the part out before the stop succeeded.
        final Tracked handle = found.stopping() ? found : new Tracked(found.handle(), found.process(), true, Set.of());
        if (handle != found && !running.replace(part.commandId(), found, handle)) {
            return Optional.empty(); // it exited by itself just now
        }
        final ProcessTree.Ending ending;
        try {
            if (handle.survivors().isEmpty()) {
                ending = ProcessTree.stop(handle.handle(), grace);
            } else {
                ProcessTree.kill(handle.survivors());
                ending = ProcessTree.Ending.KILLED;
            }
        } catch (final ProcessTree.StillRunningException e) {
            // Kept, with what is left to kill: a retry kills those again rather than report the part stopped.
            running.replace(part.commandId(), handle, new Tracked(handle.handle(), handle.process(), true,
                    e.survivors()));
            LOG.warn("could not stop {} (pid {}): {}", part.key(), handle.handle().pid(), e.getMessage());
            throw e;
        }
        running.remove(part.commandId());
        LOG.info("stopped {} (pid {}): {} ({})", part.key(), handle.handle().pid(), ending, reason);
        final String how = ending == ProcessTree.Ending.KILLED
                ? "SIGKILL after " + grace.toMillis() + " ms grace" : "SIGTERM";
        return Optional.of(Outcome.stopped(exitCode(handle.process()), reason + " (" + how + ")"));
    }

    @Override
    public Duration longestStop() {
        return grace.plus(ProcessTree.KILL_WAIT).plus(EXIT_CODE_WAIT);
    }

    /** The exit code of a process we started (143 after SIGTERM, 137 after SIGKILL); unknown for an adopted one. */
    private static OptionalInt exitCode(final Optional<Process> process) throws InterruptedException {
        if (process.isPresent() && process.get().waitFor(EXIT_CODE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            return OptionalInt.of(process.get().exitValue());
        }
        return OptionalInt.empty();
    }

    @Override
    public void recover(final JobPart part, final long pid, final long startedAtMillis, final PartObserver observer) {
        final Optional<ProcessHandle> handle = pid < 0 ? Optional.empty() : ProcessHandle.of(pid)
                .filter(ProcessTree::alive)
                .filter(h -> h.info().startInstant().map(Instant::toEpochMilli)
                        .map(s -> Math.abs(s - startedAtMillis) <= START_TOLERANCE_MILLIS).orElse(false));
        if (handle.isEmpty()) {
            observer.ended(part, Outcome.lost(pid < 0 ? "the sink stopped before the process started"
                    : "process " + pid + " ended while the sink was down; its exit code is unknown"));
            return;
        }
        final Tracked tracked = new Tracked(handle.get(), Optional.empty());
        running.put(part.commandId(), tracked);
        LOG.info("adopted {} pid {} after a sink restart", part.key(), pid);
        watchAdopted(part, tracked, observer);
    }

    // Not our child any more: its exit can only be seen by polling, and its exit code is lost.
    private void watchAdopted(final JobPart part, final Tracked tracked, final PartObserver observer) {
        adoptedWatch.schedule(() -> {
            if (running.get(part.commandId()) != tracked) {
                return; // stopped meanwhile
            }
            if (ProcessTree.alive(tracked.handle())) {
                watchAdopted(part, tracked, observer);
            } else if (running.remove(part.commandId(), tracked)) {
                observer.ended(part, Outcome.endedWithoutCode("process " + tracked.handle().pid()
                        + " (adopted after a sink restart) ended; its exit code is unknown"));
            }
        }, ADOPTED_POLL_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Parts that run now. */
    public int runningCount() {
        return running.size();
    }

    @Override
    public void close() {
        adoptedWatch.shutdownNow();
        running.clear();
    }
}
