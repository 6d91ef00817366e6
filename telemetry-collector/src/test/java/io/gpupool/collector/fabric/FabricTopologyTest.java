package io.gpupool.collector.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpupool.collector.TestFiles;
import java.util.List;
import org.junit.jupiter.api.Test;

class FabricTopologyTest {

    @Test
    void realIbnetdiscoverPorts() {
        final FabricMap map = IbnetdiscoverParser.parse(TestFiles.text("fabric/ibnetdiscover-ports.out"));
        assertThat(map.byNode()).containsOnlyKeys("o0001", "o0002", "p0001");
        final Attachment o1 = map.primary("o0001");
        assertThat(o1.hca()).isEqualTo("HCA-1");
        assertThat(o1.leaf()).isEqualTo("ib-i1l1s01");
        assertThat(o1.spines()).containsExactly("ib-i1l2s01");
        assertThat(o1.rail()).isEqualTo("1");
        assertThat(map.primary("o0002").leaf()).isEqualTo("ib-i1l1s01");
        final Attachment p1 = map.primary("p0001");
        assertThat(p1.leaf()).isEqualTo("ib-i4l1s01");
        assertThat(p1.spines()).as("no switch peer known").isEmpty();
        assertThat(map.warnings()).isEmpty();
    }

    @Test
    void straySpacesAndUnquotedNames() {
        final String text = "  CA   7  1 0x0001 4x NDR -  SW 9  3 0x00aa   ( gpu01 mlx5_2 - leaf-a )\n"
                + "SW 9 40 0x00aa 4x NDR - SW 12 1 0x00bb ( leaf-a - spine-1 )\n"
                + "SW 9 41 0x00aa 4x NDR - SW 13 1 0x00cc ( 'leaf-a' - 'spine-2' )\n"
                + "garbage\n";
        final FabricMap map = IbnetdiscoverParser.parse(text);
        final Attachment a = map.primary("gpu01");
        assertThat(a.hca()).isEqualTo("mlx5_2");
        assertThat(a.leaf()).isEqualTo("leaf-a");
        assertThat(a.spines()).containsExactly("spine-1", "spine-2");
        assertThat(a.spine()).isEqualTo("spine-1,spine-2");
        assertThat(a.rail()).isEqualTo("2");
        assertThat(map.warnings()).singleElement().asString().contains("garbage");
    }

    @Test
    void slurmTopologyConf() {
        final String conf = "# fabric\nSwitchName=s0 Nodes=dev[0-5]\nSwitchName=s1 Nodes=gpu[01-16],big1\n"
                + "SwitchName=s2 Nodes=dev[6-7]   LinkSpeed=400\nswitchname=s3 Switches=s[0-1]\nSwitchName=s4 Switches=s2\n";
        final FabricMap map = SlurmTopologyParser.parse(conf);
        assertThat(map.byNode()).hasSize(6 + 16 + 1 + 2);
        assertThat(map.primary("dev3").leaf()).isEqualTo("s0");
        assertThat(map.primary("dev3").spine()).isEqualTo("s3");
        assertThat(map.primary("gpu09").leaf()).isEqualTo("s1");
        assertThat(map.primary("big1").spine()).isEqualTo("s3");
        assertThat(map.primary("dev7").spine()).isEqualTo("s4");
    }

    @Test
    void staticConfig() {
        final FabricMap map = StaticTopologyParser.parse("gpu[1-2] leafA spine1\nn9 leafB - mlx5_0 0\nbad\n");
        assertThat(map.primary("gpu2").leaf()).isEqualTo("leafA");
        assertThat(map.primary("n9").spines()).isEmpty();
        assertThat(map.primary("n9").rail()).isEqualTo("0");
        assertThat(map.warnings()).hasSize(1);
    }

    @Test
    void hostlists() {
        assertThat(Hostlist.expand("dev[0-2],gpu[01-03]")).containsExactly("dev0", "dev1", "dev2", "gpu01", "gpu02", "gpu03");
        assertThat(Hostlist.expand("a[1,3,5-6]")).containsExactly("a1", "a3", "a5", "a6");
        assertThat(Hostlist.expand("r[1-2]-n[8-9]")).isEqualTo(List.of("r1-n8", "r1-n9", "r2-n8", "r2-n9"));
        assertThat(Hostlist.expand("n[098-101]")).containsExactly("n098", "n099", "n100", "n101");
        assertThatThrownBy(() -> Hostlist.expand("n[1-")).hasMessageContaining("unbalanced");
    }
}
