select sum(l_quantity) as qty from lineitem where l_orderkey between 400000 and 404000 and l_shipdate >= date '1994-01-01'
