package io.gpupool.collector.sysfs;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.collector.TestFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InfinibandSysfsReaderTest {

    @Test
    void realH100TreeWithRoceBond() {
        final List<PortReading> ports = new InfinibandSysfsReader(TestFiles.path("sysfs/h100-ndr-ib-roce")).read();
        assertThat(ports).extracting(PortReading::hca).containsExactly(
                "mlx5_0", "mlx5_1", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7", "mlx5_8", "mlx5_9", "mlx5_bond_0");
        final PortReading ib = ports.get(0);
        assertThat(ib.port()).isEqualTo(1);
        assertThat(ib.state()).isEqualTo("ACTIVE");
        assertThat(ib.physState()).isEqualTo("LINK_UP");
        assertThat(ib.rateGbps()).isEqualTo(400.0);
        assertThat(ib.linkLayer()).isEqualTo("INFINIBAND");
        assertThat(ib.counter("port_xmit_data")).isEqualTo(230442669431839L);
        assertThat(ib.counter("port_rcv_data")).isEqualTo(230539874932483L);
        assertThat(ib.counter("port_rcv_errors")).isEqualTo(14L);
        assertThat(ib.counter("port_xmit_wait")).isEqualTo(2489603687L);
        assertThat(ib.counter("out_of_buffer")).isEqualTo(0L);
        assertThat(ib.counter("np_cnp_sent")).as("absent file: unknown").isNull();
        assertThat(ib.saturated()).isEmpty();

        final PortReading downed = ports.get(1);
        assertThat(downed.counter("link_downed")).isEqualTo(255L);
        assertThat(downed.saturated()).containsExactly("link_downed");

        final PortReading bond = ports.get(8);
        assertThat(bond.isRoce()).isTrue();
        assertThat(bond.rateGbps()).isEqualTo(200.0);
    }

    @Test
    void ratesFromDeltasNeverNegativeNeverFromSaturatedCounters(@TempDir final Path root) throws Exception {
        final Path port = root.resolve("mlx5_3/ports/1");
        Files.createDirectories(port.resolve("counters"));
        Files.writeString(port.resolve("state"), "1: DOWN\n");
        Files.writeString(port.resolve("phys_state"), "3: Disabled\n");
        Files.writeString(port.resolve("rate"), "10 Gb/sec (4X)\n");
        Files.writeString(port.resolve("link_layer"), "Ethernet\n");
        Files.writeString(port.resolve("counters/symbol_error"), "N/A (no PMA)\n");
        final AtomicLong clock = new AtomicLong();
        final InfinibandSysfsReader reader = new InfinibandSysfsReader(root, clock::get);

        write(port, 1_000, 2_000);
        final PortReading first = reader.read().get(0);
        assertThat(first.state()).isEqualTo("DOWN");
        assertThat(first.physState()).isEqualTo("DISABLED");
        assertThat(first.counter("symbol_error")).as("N/A (no PMA)").isNull();
        assertThat(LinkRates.txBytesPerSec(null, first)).isNull();

        clock.set(2_000_000_000L);
        write(port, 1_500, 2_250);
        final PortReading second = reader.read().get(0);
        assertThat(LinkRates.txBytesPerSec(first, second)).isEqualTo(1_000.0); // 500 x 4 bytes over 2 s
        assertThat(LinkRates.rxBytesPerSec(first, second)).isEqualTo(500.0);

        clock.set(3_000_000_000L);
        write(port, 10, 4_294_967_295L);
        final PortReading third = reader.read().get(0);
        assertThat(LinkRates.txBytesPerSec(second, third)).as("counter went down: reset").isNull();
        assertThat(third.saturated()).containsExactly("port_rcv_data");
        assertThat(LinkRates.rxBytesPerSec(second, third)).as("saturated").isNull();
    }

    @Test
    void absentRootMeansNoPorts(@TempDir final Path dir) {
        assertThat(new InfinibandSysfsReader(dir.resolve("none")).read()).isEmpty();
    }

    private static void write(final Path port, final long xmit, final long rcv) throws Exception {
        Files.writeString(port.resolve("counters/port_xmit_data"), xmit + "\n");
        Files.writeString(port.resolve("counters/port_rcv_data"), rcv + "\n");
    }
}
