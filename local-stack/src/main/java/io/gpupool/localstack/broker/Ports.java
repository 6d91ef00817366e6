package io.gpupool.localstack.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/** Free-port checks on the loopback interface, where the local broker listens. */
public final class Ports {

    private Ports() {
    }

    /** A port the OS says is free right now (another process may still take it before we bind). */
    public static int free() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on the loopback interface", e);
        }
    }

    public static boolean isFree(final int port) {
        if (port <= 0) {
            return false;
        }
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether something accepts TCP connections on this loopback port now. */
    public static boolean accepts(final int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The wanted port if it is free, else a free one. */
    public static int preferred(final int wanted) {
        return isFree(wanted) ? wanted : free();
    }
}
