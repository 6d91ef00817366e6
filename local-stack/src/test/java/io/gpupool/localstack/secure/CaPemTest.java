package io.gpupool.localstack.secure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The secured stack's CA as PEM, for clients that read no PKCS12 (librdkafka, Node): the truststore's CA
 * certificate, made again at a start that finds it missing, and named in every principal's client file.
 */
class CaPemTest {

    @TempDir
    Path dataDir;

    @Test
    void theCaPemIsTheTruststoresCaAndEveryClientFileNamesIt() throws Exception {
        final StackSecurity security = StackSecurity.ensure(dataDir);
        final Path pem = security.caPem();
        assertThat(pem).isEqualTo(security.certificates().truststore().resolveSibling("ca.pem"));
        final String text = Files.readString(pem, StandardCharsets.US_ASCII);
        assertThat(text).startsWith("-----BEGIN CERTIFICATE-----\n").endsWith("\n-----END CERTIFICATE-----\n");
        assertThat(text.lines().filter(l -> !l.startsWith("-----"))).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(64));
        assertThat(readPem(pem)).isEqualTo(truststoreCa(security));

        security.writeClientFiles();
        for (final StackPrincipal p : StackPrincipal.values()) {
            final Properties client = new Properties();
            try (Reader r = Files.newBufferedReader(security.clientFile(p), StandardCharsets.UTF_8)) {
                client.load(r);
            }
            assertThat(client.getProperty(StackSecurity.CA_PEM_KEY)).as(p.user()).isEqualTo(pem.toString());
        }
    }

    @Test
    void aStartThatFindsNoPemWritesItAgainFromTheSameCa() throws Exception {
        final StackSecurity first = StackSecurity.ensure(dataDir);
        final Certificate ca = readPem(first.caPem());
        Files.delete(first.caPem());
        final StackSecurity again = StackSecurity.ensure(dataDir);
        assertThat(readPem(again.caPem())).isEqualTo(ca);
    }

    private static Certificate readPem(final Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            return CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    private static Certificate truststoreCa(final StackSecurity security) throws Exception {
        final KeyStore store = KeyStore.getInstance(StackCertificates.TYPE);
        try (InputStream in = Files.newInputStream(security.certificates().truststore())) {
            store.load(in, security.certificates().password().toCharArray());
        }
        return store.getCertificate("ca");
    }
}
