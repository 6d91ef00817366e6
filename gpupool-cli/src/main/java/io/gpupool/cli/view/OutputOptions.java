package io.gpupool.cli.view;

import io.gpupool.cli.config.ExitCodes;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.gpupool.cli.config.DurationConverter;
import io.gpupool.scheduler.query.QueryClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * {@code -o table|wide|json|yaml} and {@code --watch}, the same for every read command ({@code jobs}, {@code nodes},
 * {@code pool}, {@code queue}, {@code explain}): the command says what to fetch and how people read it
 * ({@link Screen}); this prints it once, or again every {@code --interval} until Ctrl-C or until the scheduler
 * goes away.
 */
public final class OutputOptions {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final String CLEAR_SCREEN = "\033[H\033[2J";

    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "table", converter = OutputFormat.Converter.class,
            description = "table (default), wide (more columns), json or yaml (the scheduler's answer as it is: times "
                    + "in epoch milliseconds).")
    OutputFormat format = OutputFormat.TABLE;

    @Option(names = {"-w", "--watch"}, description = "Print again every --interval, until Ctrl-C or until the scheduler "
            + "goes away.")
    boolean watch;

    @Option(names = "--interval", paramLabel = "TIME", defaultValue = "2s", converter = DurationConverter.class,
            description = "How often --watch prints (default ${DEFAULT-VALUE}; e.g. 500ms, 10s).")
    Duration interval = Duration.ofSeconds(2);

    /** Shows {@code screen}'s answer as asked; returns the exit code. {@code command} names it in messages. */
    public int show(final String command, final Screen screen, final QueryClient scheduler, final CommandLine cli) {
        final PrintWriter out = cli.getOut();
        final PrintWriter err = cli.getErr();
        if (!watch) {
            final JsonNode answer;
            try {
                answer = screen.fetch(scheduler);
            } catch (QueryClient.QueryException e) {
                err.println(command + ": " + e.getMessage());
                err.flush();
                return screen.failureCode(e);
            }
            print(screen, answer, out);
            return 0;
        }
        if (interval.isNegative() || interval.isZero()) {
            err.println(command + ": --interval must be longer than 0, e.g. --interval 2s");
            err.flush();
            return ExitCodes.USAGE.code();
        }
        return watch(command, screen, scheduler, out, err);
    }

    private int watch(final String command, final Screen screen, final QueryClient scheduler, final PrintWriter out,
                      final PrintWriter err) {
        final Thread loop = Thread.currentThread();
        final AtomicBoolean stopping = new AtomicBoolean();
        final CountDownLatch stopped = new CountDownLatch(1);
        // Ctrl-C runs shutdown hooks: stop the loop and let it say so before the JVM ends.
        final Thread onCtrlC = new Thread(() -> {
            stopping.set(true);
            loop.interrupt();
            try {
                stopped.await(3, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "gpupool-watch-stop");
        Runtime.getRuntime().addShutdownHook(onCtrlC);
        final boolean clear = format.human() && System.console() != null;
        try {
            while (!stopping.get()) {
                final HumanTime time = HumanTime.now();
                JsonNode answer = null;
                String failure = null;
                try {
                    answer = screen.fetch(scheduler);
                } catch (QueryClient.QueryException e) {
                    if (stopping.get() || Thread.currentThread().isInterrupted()) {
                        break;
                    }
                    if (e.status() < 0) {
                        err.println(command + ": " + e.getMessage() + "; stopped watching");
                        err.flush();
                        return ExitCodes.NO_ANSWER.code();
                    }
                    failure = e.getMessage(); // rebalancing, job not there yet: say so and ask again
                }
                if (format.human()) {
                    out.print(clear ? CLEAR_SCREEN : "");
                    out.println("every " + HumanTime.duration(interval.toMillis()) + ": " + command + "  "
                            + time.local(time.nowMs()));
                }
                if (answer != null) {
                    print(screen, answer, out);
                } else {
                    out.println(command + ": " + failure);
                }
                out.flush();
                try {
                    Thread.sleep(interval.toMillis());
                } catch (InterruptedException e) {
                    break;
                }
            }
            err.println(command + ": stopped watching");
            err.flush();
            return 0;
        } finally {
            stopped.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(onCtrlC);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running: nothing to remove
            }
        }
    }

    private void print(final Screen screen, final JsonNode answer, final PrintWriter out) {
        try {
            switch (format) {
                case JSON -> out.println(JSON.writeValueAsString(answer));
                case YAML -> out.print(YAML.writeValueAsString(answer));
                default -> screen.print(answer, format == OutputFormat.WIDE, HumanTime.now(), out);
            }
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the answer as " + format + ": " + e.getMessage(), e);
        }
        out.flush();
    }
}
