SELECT s.s_name, sum(l.l_quantity) AS qty
FROM lineitem l JOIN supplier s ON l.l_suppkey = s.s_suppkey
GROUP BY s.s_name ORDER BY s.s_name
