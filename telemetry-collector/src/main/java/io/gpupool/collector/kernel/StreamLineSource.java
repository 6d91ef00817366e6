package io.gpupool.collector.kernel;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lines from a stream that blocks between messages: /dev/kmsg, or the stdout of
 * {@code journalctl -k -f}. A daemon thread reads; a bounded queue holds what the collector has
 * not taken yet (overflow is counted, not stored, so a log storm cannot exhaust memory).
 */
public final class StreamLineSource implements LineSource {
    private static final Logger LOG = LoggerFactory.getLogger(StreamLineSource.class);
    private static final int CAPACITY = 10_000;

    private final BlockingQueue<String> queue = new ArrayBlockingQueue<>(CAPACITY);
    private final AtomicLong dropped = new AtomicLong();
    private final Thread reader;
    private final Process process;
    private final InputStream in;
    private final long skipKmsgBeforeMicros;

    private StreamLineSource(final InputStream in, final Process process, final String name, final long skipKmsgBeforeMicros) {
        this.in = in;
        this.process = process;
        this.skipKmsgBeforeMicros = skipKmsgBeforeMicros;
        this.reader = new Thread(this::readLoop, "kernel-log-" + name);
        this.reader.setDaemon(true);
        this.reader.start();
    }

    /**
     * /dev/kmsg (or any character device / fifo with one record per line). Reading /dev/kmsg starts
     * at the oldest record still in the ring buffer; records stamped before now (monotonic time,
     * /proc/uptime) are skipped, so Xids from before the collector started are not reported as new.
     */
    public static StreamLineSource device(final Path path) throws IOException {
        return new StreamLineSource(Files.newInputStream(path), null, path.toString(), uptimeMicros());
    }

    /** A stream given by the caller (a test's pipe); kmsg records stamped before {@code skipBeforeMicros} are skipped. */
    public static StreamLineSource stream(final InputStream in, final long skipBeforeMicros) {
        return new StreamLineSource(in, null, "stream", skipBeforeMicros);
    }

    /** A child process such as {@code journalctl -k -f -o short-iso}. */
    public static StreamLineSource process(final List<String> command) throws IOException {
        final Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        return new StreamLineSource(p.getInputStream(), p, command.get(0), 0);
    }

    public long dropped() {
        return dropped.get();
    }

    private void readLoop() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (isOldKmsgRecord(line)) {
                    continue;
                }
                if (!queue.offer(line)) {
                    dropped.incrementAndGet();
                }
            }
        } catch (IOException e) {
            // /dev/kmsg answers EPIPE when records were overwritten before we read them; keep going is
            // not possible on this stream, so say so once.
            LOG.warn("kernel log stream ended: {}", e.getMessage());
        }
    }

    /** A /dev/kmsg record reads "prio,seq,usec_since_boot,flags;message". */
    private boolean isOldKmsgRecord(final String line) {
        if (skipKmsgBeforeMicros <= 0) {
            return false;
        }
        final int semicolon = line.indexOf(';');
        if (semicolon < 0) {
            return false;
        }
        final String[] header = line.substring(0, semicolon).split(",");
        if (header.length < 3 || !header[2].matches("\\d+")) {
            return false;
        }
        return Long.parseLong(header[2]) < skipKmsgBeforeMicros;
    }

    static long uptimeMicros() {
        try {
            final String uptime = Files.readString(Path.of("/proc/uptime")).trim().split("\\s+")[0];
            return (long) (Double.parseDouble(uptime) * 1_000_000);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    @Override
    public List<String> poll() {
        final List<String> lines = new ArrayList<>();
        queue.drainTo(lines);
        return lines;
    }

    @Override
    public void close() {
        if (process != null) {
            process.destroy();
        }
        try {
            in.close();
        } catch (IOException e) {
            LOG.debug("closing kernel log stream", e);
        }
    }
}
