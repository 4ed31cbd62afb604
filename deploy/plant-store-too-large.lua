-- haproxy's answer to a body over the bounds in haproxy.cfg (http-request use-service
-- lua.too_large): 413 in the server's Error shape at once, then the rest of the body read and
-- dropped (up to 16 MiB) before the connection closes. haproxy 2.6 closes a connection with
-- the body still arriving right after its own answer (`http-request deny`), and the client
-- then meets a reset (EPIPE) before it reads the 413; nginx reads on for the same reason
-- (lingering_close). Installed beside haproxy.cfg: /etc/haproxy/plant-store-too-large.lua.
local BODY = '{"error":41301,"message":"Request body is larger than this proxy accepts (64 KiB for POST /plants, 4 KiB elsewhere)"}'
local DRAIN_BYTES = 16 * 1024 * 1024

core.register_service("too_large", "http", function(applet)
  applet:set_status(413)
  applet:add_header("content-type", "application/json")
  applet:add_header("content-length", tostring(#BODY))
  applet:add_header("connection", "close")
  applet:start_response()
  applet:send(BODY)
  local left = DRAIN_BYTES
  while left > 0 do
    local read = applet:receive(math.min(left, 65536))
    if read == nil or #read == 0 then break end
    left = left - #read
  end
end)
