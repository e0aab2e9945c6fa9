package dev.tickwheel.client;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback socket that accepts every connection and never answers, nor closes: what a hung server looks like.
 *
 * <p>Thread-safe: one thread accepts; the accepted sockets are in a copy-on-write list.
 */
final class SilentServer implements AutoCloseable {

    private final ServerSocket listener;
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();

    SilentServer() throws IOException {
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> {
            while (!listener.isClosed()) {
                try {
                    accepted.add(listener.accept());
                } catch (IOException e) {
                    return; // closed
                }
            }
        }, "test-silent-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String baseUrl() {
        return "http://127.0.0.1:" + listener.getLocalPort();
    }

    /** Connections accepted so far. */
    int connections() {
        return accepted.size();
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket socket : accepted) {
            socket.close();
        }
    }
}
