"""A TCP proxy in front of the S3 server that drops the connection in the
middle of the first large GET response (once), for scripts/test_stores.sh:
the reader must resume the object (object_store retries a body cut
mid-object with a range request) and read it whole.

Usage: cutting_proxy.py LISTEN_PORT UPSTREAM_PORT CUT_AFTER_BYTES LOG_FILE
Each cut is appended to LOG_FILE as `cut <request line> after <n> bytes`.
"""
import asyncio
import sys

listen, upstream, cut_after, log_file = (
    int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
state = {"cut": False}


async def pipe_up(reader, writer, seen):
    try:
        while data := await reader.read(65536):
            seen.append(data)
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def handle(client_r, client_w):
    up_r, up_w = await asyncio.open_connection("127.0.0.1", upstream)
    seen = []
    up_task = asyncio.create_task(pipe_up(client_r, up_w, seen))
    sent = 0
    try:
        while data := await up_r.read(65536):
            request = b"".join(seen)
            big_get = request.startswith(b"GET ") and b"range:" not in request.lower()
            if big_get and not state["cut"] and sent + len(data) > cut_after:
                state["cut"] = True
                keep = max(cut_after - sent, 0)
                client_w.write(data[:keep])
                await client_w.drain()
                line = request.split(b"\r\n", 1)[0].decode(errors="replace")
                with open(log_file, "a") as f:
                    f.write(f"cut {line} after {sent + keep} bytes\n")
                break
            sent += len(data)
            client_w.write(data)
            await client_w.drain()
    except ConnectionError:
        pass
    finally:
        up_task.cancel()
        client_w.transport.abort()
        up_w.close()


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", listen)
    async with server:
        await server.serve_forever()


asyncio.run(main())
