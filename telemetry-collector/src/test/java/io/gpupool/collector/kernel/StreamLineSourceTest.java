package io.gpupool.collector.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StreamLineSourceTest {

    /** /dev/kmsg records older than the collector's start are history, not new Xids. */
    @Test
    void kmsgHistoryIsSkippedNewRecordsArrive() throws Exception {
        final PipedOutputStream out = new PipedOutputStream();
        final PipedInputStream in = new PipedInputStream(out);
        final XidMonitor monitor = new XidMonitor(StreamLineSource.stream(in, 5_000_000));
        monitor.knowGpu("0000:9b:00.0", "GPU-4");
        out.write(("3,901,4000000,-;NVRM: Xid (PCI:0000:9b:00): 79, pid=1, name=x, old\n"
                + "3,902,6000000,-;NVRM: Xid (PCI:0000:9b:00): 119, pid=2, name=y, new\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
        final List<XidEvent> seen = new ArrayList<>();
        awaitXids(monitor, seen);
        assertThat(seen).extracting(XidEvent::xid).containsExactly(119);
        out.close();
        monitor.close();
    }

    /** The journalctl path: lines from a real child process's stdout (sh stands in for journalctl -k -f). */
    @Test
    void linesFromAChildProcess() throws Exception {
        try (XidMonitor monitor = new XidMonitor(StreamLineSource.process(List.of("sh", "-c",
                "echo 'Feb 23 16:24:18 gpu7 kernel: NVRM: Xid (PCI:0000:9b:00): 13, pid=77, name=python, Graphics Exception'")))) {
            final List<XidEvent> seen = new ArrayList<>();
            awaitXids(monitor, seen);
            assertThat(seen).singleElement().satisfies(e -> {
                assertThat(e.xid()).isEqualTo(13);
                assertThat(e.pid()).isEqualTo(77L);
                assertThat(e.pciBusId()).isEqualTo("0000:9b:00.0");
            });
        }
    }

    /** Drains the monitor into {@code seen} until it has an Xid. */
    private static void awaitXids(final XidMonitor monitor, final List<XidEvent> seen) {
        await("an Xid").atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).until(() -> {
            monitor.drain().values().forEach(seen::addAll);
            return !seen.isEmpty();
        });
    }
}
